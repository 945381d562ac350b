/**
 * Webhook subscriptions (src/docs/notes/webhooks.md): create (the signing secret shown once), list, delete, and the
 * recent deliveries of one. REST only, for admin keys and crew:write tokens; the dashboard's
 * webhooks page and `crew webhook add` call the same functions.
 */
import * as v from "valibot";
import { actorOf, createdByOf, writeAccess } from "../auth/access.ts";
import type { Config } from "../config.ts";
import { type Principal, WEBHOOK_EVENTS } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { privateTargetProblem } from "../integrations/outbound-targets.ts";
import { iso, isoOrNull } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import type { Db } from "../store/db.ts";
import { deleteWebhook, getWebhook, insertWebhook, listDeliveries, listWebhooks, type WebhookRecord } from "../store/delivery/webhooks.ts";
import { eventAsSent } from "../webhooks/deliver.ts";
import { sealWebhookSecret } from "../webhooks/secret-at-rest.ts";
import { newWebhookSecret } from "../webhooks/sign.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, LongText, PageLimit, PublicUrl } from "./schemas.ts";

const EventName = v.picklist(WEBHOOK_EVENTS, `Must be one of ${WEBHOOK_EVENTS.join(", ")}.`);

const WebhookUrl = v.pipe(
  PublicUrl,
  v.description(
    "Where Crew POSTs the events: http(s) only; loopback, private and link-local addresses are refused unless ALLOW_PRIVATE_TARGETS is on.",
  ),
);

export const CreateWebhookInput = v.strictObject({
  url: WebhookUrl,
  events: v.pipe(
    v.array(EventName, "Must be an array of event names."),
    v.minLength(1, "Give at least one event."),
    v.check((events) => new Set(events).size === events.length, "Each event may appear once."),
    v.description(`The events to receive: ${WEBHOOK_EVENTS.join(", ")}.`),
  ),
  description: v.optional(v.pipe(LongText, v.description("A note for people: what receives these events."))),
});
export type CreateWebhookInput = v.InferOutput<typeof CreateWebhookInput>;

const Webhook = v.object({
  id: v.pipe(v.string(), v.description("`whk_…`")),
  url: v.string(),
  events: v.array(EventName),
  description: v.nullable(v.string()),
  createdAt: DateTime,
  lastAttemptAt: v.pipe(v.nullable(DateTime), v.description("When the latest delivery attempt to it started; null before the first.")),
  lastSuccessAt: v.pipe(v.nullable(DateTime), v.description("When an attempt last got a 2xx answer; null before the first.")),
  lastFailureAt: v.pipe(v.nullable(DateTime), v.description("When an attempt last failed (no 2xx); null when none has.")),
  lastFailureReason: v.pipe(v.nullable(v.string()), v.description("Why that attempt failed, e.g. `HTTP 500`.")),
});

const CreatedWebhook = v.object({
  id: v.string(),
  url: v.string(),
  events: v.array(EventName),
  description: v.nullable(v.string()),
  secret: v.pipe(
    v.string(),
    v.description("The signing secret, `whsec_…` (Standard Webhooks). Shown only in this response: store it in the receiver now."),
  ),
  createdAt: DateTime,
});
export type CreatedWebhook = v.InferOutput<typeof CreatedWebhook>;

const Delivery = v.object({
  eventId: v.pipe(v.string(), v.description("`evt_…`: the `webhook-id` header, the same on every attempt.")),
  event: EventName,
  payload: v.pipe(v.unknown(), v.description("The JSON body sent.")),
  status: v.pipe(
    v.picklist(["pending", "delivering", "delivered", "failed"]),
    v.description(
      "pending (due at nextAttemptAt), delivering (an attempt in flight), delivered (a 2xx came back), failed (attempts exhausted).",
    ),
  ),
  attempts: v.pipe(v.number(), v.description("Attempts made so far (at most 7).")),
  lastStatusCode: v.pipe(v.nullable(v.number()), v.description("HTTP status of the latest attempt; null when none came back.")),
  lastError: v.pipe(v.nullable(v.string()), v.description("Why the latest attempt did not succeed; null once delivered.")),
  nextAttemptAt: v.pipe(v.nullable(DateTime), v.description("When the next attempt is due; null once delivered or failed.")),
  lastAttemptAt: v.nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});

interface WebhookDeps {
  db: Db;
  config: Config;
  clock: { now(): number };
}

const toView = (w: WebhookRecord): v.InferOutput<typeof Webhook> => ({
  id: w.id,
  url: w.url,
  events: w.events as v.InferOutput<typeof EventName>[],
  description: w.description,
  createdAt: iso(w.createdAt),
  lastAttemptAt: isoOrNull(w.lastAttemptAt),
  lastSuccessAt: isoOrNull(w.lastSuccessAt),
  lastFailureAt: isoOrNull(w.lastFailureAt),
  lastFailureReason: w.lastFailureReason,
});

/** Creates a subscription of the organization; `createdBy` is a user id (or "cli"). */
export async function createWebhookFor(
  deps: WebhookDeps,
  owner: { orgId: string; createdBy: string },
  input: CreateWebhookInput,
): Promise<CreatedWebhook> {
  const refused = privateTargetProblem(input.url, deps.config.allowPrivateTargets);
  if (refused)
    throw new ApiError(400, "invalid_request", `The url is refused: ${refused}`, { issues: [{ path: "url", message: refused }] });
  const now = deps.clock.now();
  const created = {
    id: newId("whk", now),
    url: new URL(input.url).href,
    events: input.events,
    description: input.description?.trim() || null,
    secret: newWebhookSecret(),
  };
  const sealed = await sealWebhookSecret(deps.config, created.id, created.secret);
  await insertWebhook(deps.db, { ...created, secret: sealed, orgId: owner.orgId, createdBy: owner.createdBy }, now);
  const actor = owner.createdBy === "cli" ? ({ kind: "cli" } as const) : ({ kind: "user", userId: owner.createdBy } as const);
  await recordAudit(deps.db, owner.orgId, "webhook.created", actor, now, created.id, {
    url: withoutQuery(created.url),
    events: input.events,
  });
  return { ...created, createdAt: iso(now) };
}

export async function listWebhooksFor(deps: WebhookDeps, principal: Principal) {
  return { webhooks: (await listWebhooks(deps.db, principal.orgId)).map(toView) };
}

/** Another organization's subscription is "not found" too. */
export async function deleteWebhookFor(deps: WebhookDeps, principal: Principal, id: string): Promise<{ ok: true }> {
  if (!(await deleteWebhook(deps.db, principal.orgId, id))) throw notFound(`Webhook ${id}`);
  await recordAudit(deps.db, principal.orgId, "webhook.deleted", actorOf(principal), deps.clock.now(), id);
  return { ok: true };
}

const WebhookId = v.pipe(v.string("Must be a string."), v.maxLength(100, "Not a webhook id."), v.description("The webhook id (whk_…)."));

export const createWebhookOp = defineOperation({
  id: "createWebhook",
  role: "owner",
  summary: "Subscribe a webhook",
  description:
    "Subscribes a URL to events of the organization (action.created, briefing.completed, standup.ready, budget.warning). Returns the subscription with its signing secret (`whsec_…`), shown only here. Every delivery is a POST of JSON signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers); any 2xx acknowledges; others are retried after 5 s, 30 s, 2 min, 10 min, 1 h and 6 h.",
  input: CreateWebhookInput,
  output: CreatedWebhook,
  rest: { method: "POST", path: "/api/webhooks", access: writeAccess(), from: "body", tags: ["Webhooks"] },
  handler: (ctx, input) => createWebhookFor(ctx, { orgId: ctx.principal.orgId, createdBy: createdByOf(ctx.principal) }, input),
});

export const listWebhooksOp = defineOperation({
  id: "listWebhooks",
  role: "owner",
  summary: "List webhooks",
  description: "The organization's webhook subscriptions, newest first, without their secrets.",
  input: v.strictObject({}),
  output: v.object({ webhooks: v.array(Webhook) }),
  rest: { method: "GET", path: "/api/webhooks", access: writeAccess(), from: "query", tags: ["Webhooks"] },
  handler: (ctx) => listWebhooksFor(ctx, ctx.principal),
});

export const deleteWebhookOp = defineOperation({
  id: "deleteWebhook",
  role: "owner",
  summary: "Delete a webhook",
  description: "Deletes a subscription and its pending deliveries: nothing more is sent to it. 404 when it is not the organization's.",
  input: v.strictObject({ id: WebhookId }),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/webhooks/{id}", access: writeAccess(), from: "none", tags: ["Webhooks"] },
  handler: (ctx, input) => deleteWebhookFor(ctx, ctx.principal, input.id),
});

export const listWebhookDeliveriesOp = defineOperation({
  id: "listWebhookDeliveries",
  role: "owner",
  summary: "Recent deliveries of a webhook",
  description:
    "The latest deliveries to one subscription, newest event first: the event and its body, status (pending, delivering, delivered, failed), attempts, the last HTTP status or error, and when the next attempt is due; finished deliveries are kept 90 days. Use it to see why a receiver is not getting events.",
  input: v.strictObject({
    id: WebhookId,
    limit: PageLimit(50),
  }),
  output: v.object({ deliveries: v.array(Delivery) }),
  rest: { method: "GET", path: "/api/webhooks/{id}/deliveries", access: writeAccess(), from: "query", tags: ["Webhooks"] },
  handler: async (ctx, input) => {
    const hook = await getWebhook(ctx.db, ctx.principal.orgId, input.id);
    if (!hook) throw notFound(`Webhook ${input.id}`);
    const rows = await listDeliveries(ctx.db, hook.id, input.limit);
    return {
      deliveries: rows.map((d) => ({
        eventId: d.eventId,
        event: d.event as v.InferOutput<typeof EventName>,
        payload: eventAsSent(d.payload, ctx.config.baseUrl),
        status: d.status,
        attempts: d.attempts,
        lastStatusCode: d.lastStatus,
        lastError: d.lastError,
        nextAttemptAt: isoOrNull(d.nextAttemptAt),
        lastAttemptAt: isoOrNull(d.lastAttemptAt),
        createdAt: iso(d.createdAt),
        updatedAt: iso(d.updatedAt),
      })),
    };
  },
});

/** A receiver URL may carry a token in its query string: the audit log keeps origin and path only. */
const withoutQuery = (url: string) => {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
};
