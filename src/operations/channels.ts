/**
 * The organization's team-chat connections (src/docs/notes/delivery.md), owners only: Slack (a bot token, sealed
 * like other credentials and never shown again; the channel the standups go to; the channels the
 * Slack agent reads) and Microsoft Teams (an incoming-webhook URL of Teams Workflows, sealed too:
 * the URL is itself the credential). REST for admin keys and crew:write tokens, and for signed-in
 * owners on /settings/slack and /settings/notifications, which call the same functions.
 */
import * as v from "valibot";
import { actorOf, writeAccess } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Principal } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { privateTargetProblem } from "../integrations/outbound-targets.ts";
import { checkSlackToken } from "../integrations/slack/check.ts";
import { type SlackConfig, sealChannelSecret } from "../integrations/slack/connection.ts";
import { iso } from "../lib/clock.ts";
import { recordAudit } from "../store/audit/audit.ts";
import type { Db } from "../store/db.ts";
import { type ChannelKind, deleteChannel, getChannel, saveChannelStatement } from "../store/delivery/channels.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, PublicUrl } from "./schemas.ts";

const tags = ["Integrations"];

interface Deps {
  db: Db;
  config: Config;
  clock: { now(): number };
}

const ChannelId = v.pipe(
  v.string("Must be a string."),
  v.trim(),
  v.regex(/^[A-Z0-9]{8,20}$/, "Must be a Slack channel id such as C0123456789."),
);

export const SlackInput = v.strictObject({
  botToken: v.pipe(
    v.string("Must be a string."),
    v.trim(),
    v.regex(/^xox[a-z]-[A-Za-z0-9-]{8,250}$/, "Must be a Slack bot token (xoxb-…)."),
    v.description(
      "The Slack app's bot token (`xoxb-…`), with chat:write, users:read.email and channels:history. Stored sealed, never shown.",
    ),
  ),
  channel: v.pipe(
    v.string("Must be a string."),
    v.trim(),
    v.regex(/^(#?[a-z0-9][a-z0-9_-]{0,79}|[A-Z0-9]{8,20})$/, "Must be a channel id (C0123…) or name (#standup)."),
    v.description("Where the morning and evening standups are posted: a channel id or #name the bot is a member of."),
  ),
  readChannels: v.optional(
    v.pipe(
      v.array(ChannelId, "Must be an array of channel ids."),
      v.maxLength(20, "At most 20 channels."),
      v.description("Channels the Slack agent reads (ids); none: it reads nothing."),
    ),
    [],
  ),
});
export type SlackInput = v.InferOutput<typeof SlackInput>;

const SlackView = v.object({
  connected: v.boolean(),
  channel: v.nullable(v.string()),
  readChannels: v.array(v.string()),
  connectedAt: v.nullable(DateTime),
});

export async function slackStatus(deps: Deps, orgId: string): Promise<v.InferOutput<typeof SlackView>> {
  const stored = await getChannel(deps.db, orgId, "slack");
  if (!stored) return { connected: false, channel: null, readChannels: [], connectedAt: null };
  const c = stored.config as unknown as SlackConfig;
  return { connected: true, channel: c.channel, readChannels: c.readChannels ?? [], connectedAt: iso(stored.updatedAt) };
}

export async function connectSlackFor(deps: Deps, principal: Principal, input: SlackInput) {
  // Checked with Slack before it is stored (auth.test): a wrong token is refused now, with Slack's reason.
  const checked = await checkSlackToken(deps.config, input.botToken);
  if (!checked.ok)
    throw new ApiError(400, "invalid_request", `The botToken is refused: ${checked.message}`, {
      issues: [{ path: "botToken", message: checked.message }],
    });
  const now = deps.clock.now();
  const config: SlackConfig = {
    botToken: await sealChannelSecret(deps.config, "slack", principal.orgId, input.botToken),
    channel: input.channel,
    readChannels: [...new Set(input.readChannels)],
  };
  await deps.db.execute(saveChannelStatement(principal.orgId, "slack", { ...config }, now));
  await recordAudit(deps.db, principal.orgId, "channel.connected", actorOf(principal), now, "slack", {
    channel: input.channel,
  });
  return slackStatus(deps, principal.orgId);
}

export async function disconnectFor(deps: Deps, principal: Principal, kind: ChannelKind): Promise<{ ok: true }> {
  if (!(await deleteChannel(deps.db, principal.orgId, kind))) throw notFound(kind === "slack" ? "Slack connection" : "Teams connection");
  await recordAudit(deps.db, principal.orgId, "channel.removed", actorOf(principal), deps.clock.now(), kind);
  return { ok: true };
}

export const connectSlackOp = defineOperation({
  id: "connectSlack",
  role: "owner",
  summary: "Connect Slack",
  description:
    "Connects the organization's Slack workspace (owners): the bot token (checked with Slack's auth.test first: a token Slack refuses is a 400 naming Slack's reason, nothing stored; sealed, never shown again), the channel the morning and evening standups are posted to, and the channels the Slack agent reads. Replaces an earlier connection.",
  input: SlackInput,
  output: SlackView,
  rest: { method: "POST", path: "/api/integrations/slack", access: writeAccess(), from: "body", tags },
  handler: (ctx, input) => connectSlackFor(ctx, ctx.principal, input),
});

export const getSlackOp = defineOperation({
  id: "getSlack",
  role: "owner",
  summary: "Slack connection",
  description: "Whether Slack is connected, the standup channel and the channels the Slack agent reads. Never the token.",
  input: v.strictObject({}),
  output: SlackView,
  rest: { method: "GET", path: "/api/integrations/slack", access: writeAccess(), from: "none", tags },
  handler: (ctx) => slackStatus(ctx, ctx.principal.orgId),
});

export const disconnectSlackOp = defineOperation({
  id: "disconnectSlack",
  role: "owner",
  summary: "Disconnect Slack",
  description: "Forgets the Slack connection and its token: no more standup posts, DMs or Slack agent reads. 404 when none.",
  input: v.strictObject({}),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/integrations/slack", access: writeAccess(), from: "none", tags },
  handler: (ctx) => disconnectFor(ctx, ctx.principal, "slack"),
});

export const TeamsInput = v.strictObject({
  webhookUrl: v.pipe(
    PublicUrl,
    v.description("The incoming-webhook URL of a Teams Workflow (“Post to a channel when a webhook request is received”). Stored sealed."),
  ),
});

const TeamsView = v.object({ connected: v.boolean(), host: v.nullable(v.string()), connectedAt: v.nullable(DateTime) });

export async function teamsStatus(deps: Deps, orgId: string): Promise<v.InferOutput<typeof TeamsView>> {
  const stored = await getChannel(deps.db, orgId, "teams");
  if (!stored) return { connected: false, host: null, connectedAt: null };
  return { connected: true, host: String(stored.config.host ?? ""), connectedAt: iso(stored.updatedAt) };
}

export async function connectTeamsFor(deps: Deps, principal: Principal, input: v.InferOutput<typeof TeamsInput>) {
  const refused = privateTargetProblem(input.webhookUrl, deps.config.allowPrivateTargets);
  if (refused)
    throw new ApiError(400, "invalid_request", `The webhookUrl is refused: ${refused}`, {
      issues: [{ path: "webhookUrl", message: refused }],
    });
  const now = deps.clock.now();
  const url = new URL(input.webhookUrl);
  const sealed = await sealChannelSecret(deps.config, "teams", principal.orgId, url.href);
  await deps.db.execute(saveChannelStatement(principal.orgId, "teams", { webhookUrl: sealed, host: url.host }, now));
  await recordAudit(deps.db, principal.orgId, "channel.connected", actorOf(principal), now, "teams", { host: url.host });
  return teamsStatus(deps, principal.orgId);
}

export const connectTeamsOp = defineOperation({
  id: "connectTeams",
  role: "owner",
  summary: "Connect Microsoft Teams",
  description:
    "Saves the organization's Teams incoming-webhook URL (owners; sealed): the morning standup is posted to it as an Adaptive Card, through the outbound policy. Replaces an earlier one.",
  input: TeamsInput,
  output: TeamsView,
  rest: { method: "POST", path: "/api/integrations/teams", access: writeAccess(), from: "body", tags },
  handler: (ctx, input) => connectTeamsFor(ctx, ctx.principal, input),
});

export const getTeamsOp = defineOperation({
  id: "getTeams",
  role: "owner",
  summary: "Teams connection",
  description: "Whether a Teams webhook is saved, and its host. Never the URL.",
  input: v.strictObject({}),
  output: TeamsView,
  rest: { method: "GET", path: "/api/integrations/teams", access: writeAccess(), from: "none", tags },
  handler: (ctx) => teamsStatus(ctx, ctx.principal.orgId),
});

export const disconnectTeamsOp = defineOperation({
  id: "disconnectTeams",
  role: "owner",
  summary: "Disconnect Microsoft Teams",
  description: "Forgets the Teams webhook URL. 404 when none.",
  input: v.strictObject({}),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/integrations/teams", access: writeAccess(), from: "none", tags },
  handler: (ctx) => disconnectFor(ctx, ctx.principal, "teams"),
});
