/**
 * The Slack sender of the message outbox (src/docs/notes/delivery.md): the standup posted to the connection's
 * channel (`chat.postMessage`, Block Kit), and a person's briefing as a DM (`users.lookupByEmail`
 * maps them by their Crew email; no such member → skipped, the delivery log says so). A failure
 * of the connection itself (token, channel) raises the organization's critical `slack` alert; the
 * next success clears it.
 */
import { newId } from "../../lib/random.ts";
import { getUserById } from "../../store/auth/users.ts";
import type { ClaimedMessage } from "../../store/delivery/messages.ts";
import { getPrefs } from "../../store/delivery/notify.ts";
import { clearServiceAlert, raiseServiceAlert } from "../../store/integrations/alerts.ts";
import { latestBriefing, latestStandup } from "../../store/reports/reports.ts";
import type { NotifyDeps, Sender, SendResult } from "../notify/outbox.ts";
import { briefingBlocks, type StandupForSlack, standupBlocks } from "./blocks.ts";
import { slackClient, slackFailureOf } from "./client.ts";
import { slackConnection } from "./connection.ts";

/** Codes that say the person is not in the workspace, not that the connection is broken. */
const NOT_A_MEMBER = new Set(["users_not_found"]);

async function failed(deps: NotifyDeps, m: ClaimedMessage, error: unknown): Promise<SendResult> {
  const failure = slackFailureOf(error);
  if (!NOT_A_MEMBER.has(failure.error)) {
    const now = deps.clock.now();
    await raiseServiceAlert(deps.db, {
      id: newId("alr", now),
      orgId: m.orgId,
      service: "slack",
      message: `Slack refused a message (${failure.error}): check the connection in Settings → Slack.`,
      now,
    });
  }
  return { ok: false, error: `Slack: ${failure.error}`, permanent: failure.permanent };
}

export const slackSender: Sender = async (deps, m) => {
  const slack = await slackConnection(deps, m.orgId);
  if (!slack)
    return { ok: false, error: "Slack is not connected (or its token no longer opens): connect it in Settings → Slack.", permanent: true };
  const client = await slackClient(deps.config, slack.botToken);
  try {
    if (m.kind === "standup") {
      const { mode } = m.payload as { mode?: "morning" | "evening" };
      const standup = await latestStandup<StandupForSlack>(deps.db, m.orgId, mode ?? "latest");
      if (!standup) return { ok: false, error: "Skipped: no standup is stored.", permanent: true };
      const message = standupBlocks({ ...standup.body, mode: standup.mode }, `${deps.config.baseUrl}/standup`);
      await client.chat.postMessage({ channel: slack.channel, ...message });
    } else {
      const user = m.userId ? await getUserById(deps.db, m.userId) : null;
      if (!user || user.deactivatedAt !== null || !user.email)
        return { ok: false, error: "Skipped: the user is deactivated.", permanent: true };
      if (!(await getPrefs(deps.db, user.id)).briefingSlack)
        return { ok: false, error: "Skipped: the user turned the Slack DM off.", permanent: true };
      const briefing = await latestBriefing<{ briefing: string }>(deps.db, user.id);
      if (!briefing) return { ok: false, error: "Skipped: no briefing is stored for the user.", permanent: true };
      let slackUser: string | undefined;
      try {
        slackUser = (await client.users.lookupByEmail({ email: user.email })).user?.id;
      } catch (error) {
        if (slackFailureOf(error).error === "users_not_found") slackUser = undefined;
        else throw error;
      }
      if (!slackUser) return { ok: false, error: `Skipped: no Slack member has the email ${user.email}.`, permanent: true };
      const { date } = m.payload as { date: string };
      await client.chat.postMessage({
        channel: slackUser,
        ...briefingBlocks(briefing.body.briefing, date, `${deps.config.baseUrl}/briefing`),
      });
    }
  } catch (error) {
    return failed(deps, m, error);
  }
  await clearServiceAlert(deps.db, m.orgId, "slack", deps.clock.now());
  return { ok: true };
};
