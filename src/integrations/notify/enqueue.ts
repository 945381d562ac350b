/**
 * What a delivering run puts in the message outbox (src/docs/notes/delivery.md), in the run's own batch so the
 * messages exist exactly when the run's output does. Only scheduled runs and `crew agents run`
 * deliver; regenerations after writes never do. The briefing: a mail to each active user with an
 * address who has it on (at most one per user per day, by dedupe key), a Slack DM to each who
 * turned that on. The standup: a post to the Slack channel (morning and evening), and the morning
 * one as a card to Teams.
 */
import type { InStatement } from "@libsql/client";
import type { Config } from "../../config.ts";
import type { Db } from "../../store/db.ts";
import { getChannel } from "../../store/delivery/channels.ts";
import { enqueueMessageStatement } from "../../store/delivery/messages.ts";
import { listRecipients } from "../../store/delivery/notify.ts";
import { localParts } from "../zoned-time.ts";

export interface DeliveringRun {
  org: { id: string; timeZone: string };
  agentId: string;
  /** The run's output: the standup's `{standupId, mode}`. */
  output: unknown;
  now: number;
}

export function localDate(timeZone: string, ms: number): string {
  const d = localParts(timeZone, ms);
  return `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
}

export async function deliveryStatements(db: Db, config: Config | undefined, run: DeliveringRun): Promise<InStatement[]> {
  const { org, now } = run;
  const statements: InStatement[] = [];
  if (run.agentId === "briefing") {
    const date = localDate(org.timeZone, now);
    const slack = await getChannel(db, org.id, "slack");
    for (const user of await listRecipients(db, org.id)) {
      if (config?.mail && user.briefingEmail) {
        statements.push(
          enqueueMessageStatement(
            {
              orgId: org.id,
              userId: user.id,
              channel: "email",
              kind: "briefing",
              dedupeKey: `briefing-email:${user.id}:${date}`,
              payload: { date },
            },
            now,
          ),
        );
      }
      if (slack && user.briefingSlack) {
        statements.push(
          enqueueMessageStatement(
            {
              orgId: org.id,
              userId: user.id,
              channel: "slack",
              kind: "briefing",
              dedupeKey: `briefing-slack:${user.id}:${date}`,
              payload: { date },
            },
            now,
          ),
        );
      }
    }
  }
  if (run.agentId === "standup") {
    const { standupId, mode } = (run.output ?? {}) as { standupId?: string; mode?: "morning" | "evening" };
    if (!standupId) return statements;
    if (await getChannel(db, org.id, "slack")) {
      statements.push(
        enqueueMessageStatement(
          {
            orgId: org.id,
            userId: null,
            channel: "slack",
            kind: "standup",
            dedupeKey: `standup-slack:${standupId}`,
            payload: { standupId, mode },
          },
          now,
        ),
      );
    }
    if (mode === "morning" && (await getChannel(db, org.id, "teams"))) {
      statements.push(
        enqueueMessageStatement(
          {
            orgId: org.id,
            userId: null,
            channel: "teams",
            kind: "standup",
            dedupeKey: `standup-teams:${standupId}`,
            payload: { standupId, mode },
          },
          now,
        ),
      );
    }
  }
  return statements;
}
