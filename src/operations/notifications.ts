/**
 * A person's notification preferences (src/docs/notes/delivery.md): the daily briefing by mail (default on) and as a
 * Slack DM (default off). REST with the signed-in browser session only (CSRF rules apply), like
 * API keys: a preference is the person's own, not something a key or an app changes. The web page
 * /settings/notifications calls the same functions.
 */
import * as v from "valibot";
import type { Principal } from "../domain.ts";
import { iso, isoOrNull } from "../lib/clock.ts";
import type { Db } from "../store/db.ts";
import { listMessages, MESSAGE_CHANNELS } from "../store/delivery/messages.ts";
import { getPrefs, type NotificationPrefs, setPrefsStatement } from "../store/delivery/notify.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

const tags = ["Notifications"];

const Prefs = v.object({
  briefingEmail: v.pipe(v.boolean(), v.description("The daily briefing by email after the morning briefing run (needs SMTP_URL).")),
  briefingSlack: v.pipe(v.boolean(), v.description("The daily briefing as a Slack DM (needs the organization's Slack connection).")),
});

export const NotificationChanges = v.pipe(
  v.strictObject({
    briefingEmail: v.optional(v.boolean("Must be true or false.")),
    briefingSlack: v.optional(v.boolean("Must be true or false.")),
  }),
  v.check((i) => i.briefingEmail !== undefined || i.briefingSlack !== undefined, "Send at least one of briefingEmail, briefingSlack."),
);

interface Deps {
  db: Db;
  clock: { now(): number };
}

export async function updatePrefsFor(deps: Deps, principal: Principal, changes: Partial<NotificationPrefs>): Promise<NotificationPrefs> {
  await deps.db.execute(setPrefsStatement(principal.userId, changes, deps.clock.now()));
  return getPrefs(deps.db, principal.userId);
}

export const getMyNotificationsOp = defineOperation({
  id: "getMyNotifications",
  summary: "Your notification preferences",
  description: "Whether the signed-in person gets the daily briefing by email and as a Slack DM. Needs a signed-in browser session.",
  input: v.strictObject({}),
  output: Prefs,
  rest: { method: "GET", path: "/api/me/notifications", auth: "session", access: null, from: "query", tags },
  handler: (ctx) => getPrefs(ctx.db, ctx.principal.userId),
});

export const updateMyNotificationsOp = defineOperation({
  id: "updateMyNotifications",
  summary: "Change your notification preferences",
  description:
    "Turns the daily briefing by email or as a Slack DM on or off for the signed-in person; fields left out keep their value. Returns the preferences now. Needs a signed-in browser session.",
  input: NotificationChanges,
  output: Prefs,
  rest: { method: "PATCH", path: "/api/me/notifications", auth: "session", access: null, from: "body", tags },
  handler: (ctx, input) => updatePrefsFor(ctx, ctx.principal, input),
});

const LoggedMessage = v.object({
  id: v.string(),
  userEmail: v.pipe(v.nullable(v.string()), v.description("Whose message (a briefing); null for a channel's (a standup post).")),
  channel: v.picklist(MESSAGE_CHANNELS),
  kind: v.string(),
  status: v.picklist(["pending", "delivering", "delivered", "failed"]),
  attempts: v.number(),
  nextAttemptAt: v.nullable(DateTime),
  lastError: v.nullable(v.string()),
  createdAt: DateTime,
});

/**
 * The delivery log of the organization's mail, Slack and Teams messages, newest first: the owners'
 * pages Settings → Notifications and Settings → Slack. An operation of the web app only.
 */
export const listMessagesOp = defineOperation({
  id: "listMessages",
  role: "owner",
  summary: "The delivery log",
  description: "The organization's latest mail, Slack and Teams messages, newest first: status, attempts and the last error.",
  input: v.strictObject({
    limit: v.pipe(v.number("Must be a number."), v.integer("Must be a whole number."), v.minValue(1), v.maxValue(100)),
  }),
  output: v.object({ messages: v.array(LoggedMessage) }),
  handler: async (ctx, input) => ({
    messages: (await listMessages(ctx.db, ctx.principal.orgId, input.limit)).map((m) => ({
      id: m.id,
      userEmail: m.userEmail,
      channel: m.channel,
      kind: m.kind,
      status: m.status,
      attempts: m.attempts,
      nextAttemptAt: isoOrNull(m.nextAttemptAt),
      lastError: m.lastError,
      createdAt: iso(m.createdAt),
    })),
  }),
});
