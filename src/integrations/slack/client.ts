/**
 * Slack's Web API through its official client (`@slack/web-api`), pointed at SLACK_API_URL (the
 * operator's setting, trusted like the model's environment settings; tests point it at a scripted
 * API on loopback). The client's own retries are off: the message outbox retries with its backoff,
 * and the Slack agent's next run reads again.
 */
import type { Logger as SlackLogger, WebClient } from "@slack/web-api";
import type { Config } from "../../config.ts";

const quiet: SlackLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => "error" as ReturnType<SlackLogger["getLevel"]>,
  setName() {},
};

/** Loaded on first use, not at start-up: a server without Slack never pays for the client. */
export async function slackClient(config: Pick<Config, "slackApiUrl">, botToken: string): Promise<WebClient> {
  const { WebClient } = await import("@slack/web-api");
  return new WebClient(botToken, {
    slackApiUrl: `${config.slackApiUrl}/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 15_000,
    logger: quiet,
    // Methods are names, never absolute URLs: every call goes to SLACK_API_URL.
    allowAbsoluteUrls: false,
  });
}

/** Slack answers that no retry fixes: the connection (token, channel) must be changed first. */
const PERMANENT = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "missing_scope",
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "users_not_found",
  "invalid_blocks",
]);

export interface SlackFailure {
  /** Slack's error code (`invalid_auth`) or a transport description. */
  error: string;
  permanent: boolean;
}

export function slackFailureOf(error: unknown): SlackFailure {
  const e = error as { code?: string; data?: { error?: string }; message?: string };
  const code = e?.data?.error;
  if (code) return { error: code, permanent: PERMANENT.has(code) };
  return { error: e?.message ?? String(error), permanent: false };
}
