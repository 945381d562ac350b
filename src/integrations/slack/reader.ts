/**
 * What the Slack agent reads (src/docs/notes/delivery.md): the messages posted in the connection's `readChannels`
 * since its previous run (`conversations.history` with `oldest`, the first run looking back one
 * day), bounded like other sources, bot messages, Crew's own posts and channel events skipped.
 * Each message is evidence of kind `slack_message` with ref `channel/ts` and its permalink; its
 * text is untrusted data. A failure raises the organization's `slack` alert; a good read clears it.
 * `markSeen` (after the run completed) remembers the newest ts per channel.
 */

import type { Config } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import { DAY } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import { newId } from "../../lib/random.ts";
import type { Db } from "../../store/db.ts";
import { getChannel, saveChannelStateStatement } from "../../store/delivery/channels.ts";
import { clearServiceAlert, raiseServiceAlert } from "../../store/integrations/alerts.ts";
import { slackClient, slackFailureOf } from "./client.ts";
import { slackConnection } from "./connection.ts";

export const NEEDS_SLACK = "Needs Slack: connect it in Settings → Slack";

export interface SlackMessage {
  kind: "slack_message";
  /** `channel/ts`: stable, the evidence reference. */
  ref: string;
  channel: string;
  user: string | null;
  /** ISO 8601. */
  date: string;
  text: string;
  permalink: string | null;
}

interface HistoryMessage {
  ts?: string;
  text?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  app_id?: string;
}

export interface SlackReadDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
}

/** A read failed: the `slack` alert is raised already. */
export class SlackReadError extends Error {}

export async function slackMissing(db: Db, orgId: string): Promise<string | null> {
  const stored = await getChannel(db, orgId, "slack");
  return stored ? null : NEEDS_SLACK;
}

export async function readSlack(
  deps: SlackReadDeps,
  orgId: string,
  limits: { maxItems: number; maxChars: number },
): Promise<{ items: SlackMessage[]; missing: string | null; markSeen(): Promise<void> }> {
  const slack = await slackConnection(deps, orgId);
  if (!slack) return { items: [], missing: NEEDS_SLACK, markSeen: async () => {} };
  const stored = await getChannel(deps.db, orgId, "slack");
  const state = { ...((stored?.state ?? {}) as Record<string, string>) };
  const client = await slackClient(deps.config, slack.botToken);
  const now = deps.clock.now();
  const firstOldest = ((now - DAY) / 1000).toFixed(6);
  const items: SlackMessage[] = [];
  const newest: Record<string, string> = {};
  try {
    for (const channel of slack.readChannels) {
      if (items.length >= limits.maxItems) break;
      const oldest = state[channel] ?? firstOldest;
      const page = await client.conversations.history({ channel, oldest, inclusive: false, limit: Math.min(limits.maxItems, 100) });
      const messages = ((page.messages ?? []) as HistoryMessage[]).filter((m) => m.ts && Number(m.ts) > Number(oldest));
      const top = messages.reduce((max, m) => (Number(m.ts) > Number(max) ? (m.ts as string) : max), oldest);
      if (top !== oldest) newest[channel] = top;
      // People's messages only: bots (Crew's own standup posts among them), apps and channel events are skipped.
      for (const m of messages) {
        if (m.bot_id || m.app_id || m.subtype || !m.user || !m.text) continue;
        if (items.length >= limits.maxItems) break;
        const permalink = await client.chat
          .getPermalink({ channel, message_ts: m.ts as string })
          .then((r) => r.permalink ?? null)
          .catch(() => null);
        items.push({
          kind: "slack_message",
          ref: `${channel}/${m.ts}`,
          channel,
          user: m.user,
          date: new Date(Number(m.ts) * 1000).toISOString(),
          text: m.text.length > limits.maxChars ? `${m.text.slice(0, limits.maxChars)}…` : m.text,
          permalink,
        });
      }
    }
  } catch (error) {
    const failure = slackFailureOf(error);
    deps.log.warn("slack read failed", { org_id: orgId, error: failure.error });
    await raiseServiceAlert(deps.db, {
      id: newId("alr", now),
      orgId,
      service: "slack",
      message: `Slack could not be read (${failure.error}): check the connection in Settings → Slack.`,
      now,
    });
    throw new SlackReadError(`Slack: ${failure.error}`);
  }
  await clearServiceAlert(deps.db, orgId, "slack", now);
  return {
    items,
    missing: null,
    markSeen: async () => {
      await deps.db.execute(saveChannelStateStatement(orgId, "slack", { ...state, ...newest }));
    },
  };
}
