/**
 * The durable webhook outbox (SPEC §9). A write that raises a webhook event adds these statements
 * to its own db.batch, so the event is recorded exactly when the write commits — a crash can lose
 * neither one without the other. (Contract for the agents runtime and the action queue; the
 * webhooks concern fills in the body.)
 */
import type { InStatement } from "@libsql/client";
import type { Db } from "../store/db.ts";

export type WebhookEvent =
  | { event: "briefing.completed"; userId: string; briefingId: string; timestamp: string; summary?: string }
  | { event: "action.created"; actionId: string; timestamp: string; contactId?: string; dealId?: string }
  | { event: "standup.ready"; standupId: string; timestamp: string };

/** Statements recording `event` for delivery to every active subscription of the organization that wants it. */
export async function outboxStatements(_db: Db, _orgId: string, _event: WebhookEvent, _now: number): Promise<InStatement[]> {
  return [];
}
