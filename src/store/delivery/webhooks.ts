/**
 * Webhook subscriptions and the delivery outbox (src/docs/notes/webhooks.md). Every state change of a delivery is one
 * atomic statement: the claim (`pending` or an expired `delivering` → `delivering`, attempts + 1)
 * and the outcome (only by the claim that is still current), so processes sharing the database
 * never send one attempt twice and a crashed claim is taken again once its lock expires.
 */

import type { InStatement } from "@libsql/client";
import type { WebhookEvent } from "../../domain.ts";
import { newId } from "../../lib/random.ts";
import { integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Condition, Db } from "../db.ts";
import { claimDueRows } from "./claim.ts";

export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  createdBy: string;
  createdAt: number;
  /** When the last delivery attempt to it started, over every event. */
  lastAttemptAt: number | null;
  /** When an attempt last got a 2xx; when one last did not, and why (the failure's reason). */
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastFailureReason: string | null;
}

/** The webhooks table, in the order inserts name its columns; the last attempt is read from the deliveries. */
const WEBHOOKS = table("webhooks", {
  id: text(),
  orgId: text(),
  url: text(),
  events: json<string[]>([]),
  description: nullable(text()),
  secret: text(),
  createdBy: text(),
  createdAt: integer(),
  lastAttemptAt: nullable(integer()),
  lastSuccessAt: nullable(integer()),
  lastFailureAt: nullable(integer()),
  lastFailureReason: nullable(text()),
});

const INSERTED = WEBHOOKS.pick("id", "orgId", "url", "events", "description", "secret", "createdBy", "createdAt");

/** What reads return: never the secret. */
const WEBHOOK = WEBHOOKS.omit("orgId", "secret");

const TARGET = WEBHOOKS.pick("id", "url", "secret");

const WEBHOOK_COLUMNS = `id, url, events, description, created_by, created_at, last_success_at, last_failure_at, last_failure_reason,
  (SELECT max(d.last_attempt_at) FROM webhook_deliveries d WHERE d.webhook_id = webhooks.id) AS last_attempt_at`;

export async function insertWebhook(
  db: Db,
  w: { id: string; orgId: string; url: string; events: string[]; description: string | null; secret: string; createdBy: string },
  now: number,
): Promise<void> {
  await db.run(
    `INSERT INTO webhooks (${INSERTED.insertColumns}) VALUES (${INSERTED.placeholders})`,
    INSERTED.args({ ...w, createdAt: now }),
  );
}

/** The organization's subscriptions, newest first (ids are ULIDs). Secrets are never read here. */
export async function listWebhooks(db: Db, orgId: string): Promise<WebhookRecord[]> {
  const rows = await db.all<SqlRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = ? ORDER BY id DESC`, [orgId]);
  return rows.map(WEBHOOK.read);
}

export async function getWebhook(db: Db, orgId: string, id: string): Promise<WebhookRecord | null> {
  const row = await db.one<SqlRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE org_id = ? AND id = ?`, [orgId, id]);
  return row ? WEBHOOK.read(row) : null;
}

/** Deletes a subscription and its outbox rows in one transaction; false when it is not the organization's. */
export async function deleteWebhook(db: Db, orgId: string, id: string): Promise<boolean> {
  const [, deleted] = await db.batch(
    [
      {
        sql: "DELETE FROM webhook_deliveries WHERE webhook_id = ? AND EXISTS (SELECT 1 FROM webhooks WHERE id = ? AND org_id = ?)",
        args: [id, id, orgId],
      },
      { sql: "DELETE FROM webhooks WHERE id = ? AND org_id = ?", args: [id, orgId] },
    ],
    "write",
  );
  return (deleted?.rowsAffected ?? 0) === 1;
}

const WANTS_EVENT = "EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?)";

/**
 * One delivery row per subscription wanting the event, chosen when the caller's batch commits (so a
 * subscription deleted meanwhile gets none). Due at once.
 */
export function deliveryInsertStatement(
  orgId: string,
  eventId: string,
  event: string,
  payload: string,
  now: number,
  onlyIf?: Condition,
): InStatement {
  return {
    sql: `INSERT INTO webhook_deliveries (webhook_id, event_id, event, payload, status, attempts, next_attempt_at, created_at, updated_at)
          SELECT w.id, ?, ?, ?, 'pending', 0, ?, ?, ? FROM webhooks w WHERE w.org_id = ? AND ${WANTS_EVENT}${onlyIf ? ` AND ${onlyIf.sql}` : ""}`,
    args: [eventId, event, payload, now, now, now, orgId, event, ...(onlyIf?.args ?? [])],
  };
}

/**
 * The outbox row of a webhook event: one delivery per subscription of the organization wanting
 * it, all under one `evt_…` id (the `webhook-id` header, kept on retries). Part of the writer's
 * transaction; JSON.stringify leaves out optional fields that are undefined.
 */
export function outboxStatement(orgId: string, event: WebhookEvent, now: number, onlyIf?: Condition): InStatement {
  return deliveryInsertStatement(orgId, newId("evt", now), event.event, JSON.stringify(event), now, onlyIf);
}

export interface ClaimedDelivery {
  webhookId: string;
  eventId: string;
  event: string;
  payload: string;
  /** This attempt's number, 1 for the first: with the ids, the claim's fencing token. */
  attempt: number;
}

/** What a claim returns of a delivery. */
const CLAIMED = table("webhook_deliveries", {
  webhookId: text(),
  eventId: text(),
  event: text(),
  payload: text(),
  attempt: integer("attempts"),
});

/** Claims up to `limit` due deliveries for this process until `lockedUntil` (a row another process took first is skipped). */
export async function claimDueDeliveries(db: Db, now: number, lockedUntil: number, limit: number): Promise<ClaimedDelivery[]> {
  const rows = await claimDueRows<SqlRow>(
    db,
    { table: "webhook_deliveries", key: "rowid", returning: CLAIMED.select() },
    now,
    lockedUntil,
    limit,
  );
  return rows.map(CLAIMED.read);
}

/** Where and how to send: the URL and signing secret of each subscription named. */
export async function webhookTargets(db: Db, ids: string[]): Promise<Map<string, { url: string; secret: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all<SqlRow>(`SELECT id, url, secret FROM webhooks WHERE id IN (${ids.map(() => "?").join(", ")})`, ids);
  return new Map(rows.map((row) => TARGET.read(row)).map(({ id, ...target }) => [id, target]));
}

export type AttemptOutcome =
  | { status: "delivered"; httpStatus: number }
  | { status: "pending"; httpStatus: number | null; error: string | null; nextAttemptAt: number }
  | { status: "failed"; httpStatus: number | null; error: string | null };

/**
 * Records how an attempt ended — only while this claim is still the current one (same attempt
 * number, still `delivering`): a claim that expired and was taken over records nothing.
 */
export async function finishAttempt(db: Db, d: ClaimedDelivery, outcome: AttemptOutcome, now: number): Promise<boolean> {
  const row = await db.one(
    `UPDATE webhook_deliveries SET status = ?, locked_until = NULL, next_attempt_at = ?, last_status = ?, last_error = ?, updated_at = ?
      WHERE webhook_id = ? AND event_id = ? AND status = 'delivering' AND attempts = ? RETURNING 1 AS x`,
    [
      outcome.status,
      outcome.status === "pending" ? outcome.nextAttemptAt : null,
      outcome.httpStatus,
      outcome.status === "delivered" ? null : outcome.error,
      now,
      d.webhookId,
      d.eventId,
      d.attempt,
    ],
  );
  if (row === null) return false;
  // The subscription's own last success and last failure (Settings shows them): a delivery row is
  // one event's story, and retention removes old ones.
  if (outcome.status === "delivered") await db.run("UPDATE webhooks SET last_success_at = ? WHERE id = ?", [now, d.webhookId]);
  else
    await db.run("UPDATE webhooks SET last_failure_at = ?, last_failure_reason = ? WHERE id = ?", [
      now,
      (outcome.error ?? (outcome.httpStatus !== null ? `HTTP ${outcome.httpStatus}` : "no answer")).slice(0, 500),
      d.webhookId,
    ]);
  return true;
}

/** Gives a claim back untried (the process is stopping): due again at once, the attempt not counted. */
export async function releaseClaim(db: Db, d: ClaimedDelivery, now: number): Promise<void> {
  await db.run(
    `UPDATE webhook_deliveries SET status = 'pending', locked_until = NULL, attempts = attempts - 1, next_attempt_at = ?, updated_at = ?
      WHERE webhook_id = ? AND event_id = ? AND status = 'delivering' AND attempts = ?`,
    [now, now, d.webhookId, d.eventId, d.attempt],
  );
}

export interface DeliveryRecord {
  eventId: string;
  event: string;
  payload: unknown;
  status: "pending" | "delivering" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The webhook_deliveries table as the delivery log reads it. */
const DELIVERIES = table("webhook_deliveries", {
  webhookId: text(),
  eventId: text(),
  event: text(),
  payload: json<unknown>(null),
  status: text<DeliveryRecord["status"]>(),
  attempts: integer(),
  nextAttemptAt: nullable(integer()),
  lastAttemptAt: nullable(integer()),
  lastStatus: nullable(integer()),
  lastError: nullable(text()),
  createdAt: integer(),
  updatedAt: integer(),
});

const DELIVERY = DELIVERIES.omit("webhookId");

/** The subscription's most recent deliveries, newest event first (event ids are ULIDs). */
export async function listDeliveries(db: Db, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT event_id, event, payload, status, attempts, next_attempt_at, last_attempt_at, last_status, last_error, created_at, updated_at
       FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_id DESC LIMIT ?`,
    [webhookId, limit],
  );
  return rows.map(DELIVERY.read);
}
