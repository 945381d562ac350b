/**
 * Checking a Slack connection before and after it is saved (src/docs/notes/delivery.md#slack):
 * `auth.test` with the token, so a wrong token is refused on save with Slack's reason instead of
 * failing at the first standup, and a test message to the standup channel on request.
 */
import type { Config } from "../../config.ts";
import { slackClient, slackFailureOf } from "./client.ts";

/** What Slack's `auth.test` error codes mean for the person who pasted the token. */
const MEANINGS: Record<string, string> = {
  invalid_auth: "the token is not valid (mistyped, revoked, or not a bot token of this workspace)",
  not_authed: "no token reached Slack",
  account_inactive: "the app's workspace or its bot user is deactivated",
  token_revoked: "the token was revoked: reinstall the app and copy the new one",
  token_expired: "the token expired: reinstall the app or rotate the token",
  no_permission: "the token lacks the permission to be checked",
};

export type SlackCheck = { ok: true; team: string | null } | { ok: false; error: string; message: string };

/** Slack's verdict on a bot token (`auth.test`): its team, or its error code and what it means. */
export async function checkSlackToken(config: Pick<Config, "slackApiUrl">, botToken: string): Promise<SlackCheck> {
  const client = await slackClient(config, botToken);
  try {
    const answer = await client.auth.test();
    return { ok: true, team: typeof answer.team === "string" ? answer.team : null };
  } catch (error) {
    const failure = slackFailureOf(error);
    const meaning = MEANINGS[failure.error];
    const message = meaning
      ? `Slack refused this token (${failure.error}): ${meaning}.`
      : failure.permanent || /^[a-z_]+$/.test(failure.error)
        ? `Slack refused this token (${failure.error}).`
        : `Slack could not be reached to check the token: ${failure.error}`;
    return { ok: false, error: failure.error, message };
  }
}

/** Posts a short test message to the channel; Slack's error code when it refuses. */
export async function sendSlackTest(
  config: Pick<Config, "slackApiUrl" | "baseUrl">,
  connection: { botToken: string; channel: string },
): Promise<{ ok: true } | { ok: false; error: string }> {
  const client = await slackClient(config, connection.botToken);
  try {
    await client.chat.postMessage({
      channel: connection.channel,
      text: `Crew test message: the standups will be posted here (${config.baseUrl}).`,
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, error: `Slack: ${slackFailureOf(error).error}` };
  }
}
