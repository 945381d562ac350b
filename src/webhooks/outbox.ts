/**
 * The durable webhook outbox (SPEC §9). A write that raises a webhook event adds these statements
 * to its own db.batch, so the event is recorded exactly when the write commits — a crash can lose
 * neither one without the other. The deliverer (deliver.ts) sends what is recorded here.
 */
import type { InStatement } from "@libsql/client";
import { newId } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { deliveryInsertStatement, hasSubscribers } from "../store/webhooks.ts";

export const WEBHOOK_EVENTS = ["action.created", "briefing.completed", "standup.ready"] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

export type WebhookEvent =
  | { event: "briefing.completed"; userId: string; briefingId: string; timestamp: string; summary?: string }
  | { event: "action.created"; actionId: string; timestamp: string; contactId?: string; dealId?: string }
  | { event: "standup.ready"; standupId: string; timestamp: string };

/**
 * Statements recording `event` for delivery to every subscription of the organization that wants
 * it: one row per subscription, all under one `evt_…` id (the `webhook-id` header, kept on retries).
 * Empty when no subscription wants the event, so writes of an organization without webhooks pay
 * one indexed read and nothing else.
 */
export async function outboxStatements(db: Db, orgId: string, event: WebhookEvent, now: number): Promise<InStatement[]> {
  if (!(await hasSubscribers(db, orgId, event.event))) return [];
  // JSON.stringify leaves out optional fields that are undefined: the body has only what is known.
  return [deliveryInsertStatement(orgId, newId("evt", now), event.event, JSON.stringify(event), now)];
}

/** The `action.created` event of a stored action (contactId and dealId only when set). */
export function actionCreatedEvent(a: { id: string; createdAt: number; contactId: string | null; dealId: string | null }): WebhookEvent {
  return {
    event: "action.created",
    actionId: a.id,
    timestamp: new Date(a.createdAt).toISOString(),
    ...(a.contactId ? { contactId: a.contactId } : {}),
    ...(a.dealId ? { dealId: a.dealId } : {}),
  };
}
