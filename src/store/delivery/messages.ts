/**
 * The message outbox (src/docs/notes/delivery.md): every outgoing mail, Slack and Teams message is a row here, sent
 * by a background deliverer. It follows the webhook outbox (store/delivery/webhooks.ts) statement for
 * statement: the claim (`pending` or an expired `delivering` → `delivering`, attempts + 1) is one
 * atomic UPDATE, and the outcome is recorded only by the claim that is still current, so processes
 * sharing the database never send one attempt twice and a crashed claim is taken again once its
 * lock expires. A `dedupe_key` makes "at most once" rules (one briefing mail per user per day) a
 * constraint: a second enqueue with the same key is ignored.
 */
import type { InStatement } from "@libsql/client";
import { newId } from "../../lib/random.ts";
import { integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";
import { claimDueRows } from "./claim.ts";

export const MESSAGE_CHANNELS = ["email", "slack", "teams"] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
export type MessageStatus = "pending" | "delivering" | "delivered" | "failed";

export interface NewMessage {
  orgId: string;
  userId: string | null;
  channel: MessageChannel;
  kind: string;
  /** At most one message per key, ever (null: no rule). */
  dedupeKey: string | null;
  payload: unknown;
}

/** Part of the caller's batch (the run that produced the briefing or standup): due at once. */
export function enqueueMessageStatement(m: NewMessage, now: number): InStatement {
  return {
    sql: `INSERT INTO messages (id, org_id, user_id, channel, kind, dedupe_key, payload, status, attempts, next_attempt_at, created_at, updated_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
    args: [newId("msg", now), m.orgId, m.userId, m.channel, m.kind, m.dedupeKey, JSON.stringify(m.payload), now, now, now],
  };
}

export interface ClaimedMessage {
  id: string;
  orgId: string;
  userId: string | null;
  channel: MessageChannel;
  kind: string;
  payload: unknown;
  /** This attempt's number, 1 for the first: with the id, the claim's fencing token. */
  attempt: number;
}

/** What a claim returns of a message. */
const CLAIMED = table("messages", {
  id: text(),
  orgId: text(),
  userId: nullable(text()),
  channel: text<MessageChannel>(),
  kind: text(),
  payload: json<unknown>(null),
  attempt: integer("attempts"),
});

/** Claims up to `limit` due messages until `lockedUntil` (a row another process took first is skipped). */
export async function claimDueMessages(db: Db, now: number, lockedUntil: number, limit: number): Promise<ClaimedMessage[]> {
  const rows = await claimDueRows<SqlRow>(db, { table: "messages", key: "id", returning: CLAIMED.select() }, now, lockedUntil, limit);
  return rows.map(CLAIMED.read);
}

export type MessageOutcome =
  | { status: "delivered" }
  | { status: "pending"; error: string; nextAttemptAt: number }
  | { status: "failed"; error: string };

/** Records how an attempt ended, only while this claim is still the current one; false when it was taken over. */
export async function finishMessage(db: Db, m: ClaimedMessage, outcome: MessageOutcome, now: number): Promise<boolean> {
  const row = await db.one(
    `UPDATE messages SET status = ?, locked_until = NULL, next_attempt_at = ?, last_error = ?, updated_at = ?
      WHERE id = ? AND status = 'delivering' AND attempts = ? RETURNING 1 AS x`,
    [
      outcome.status,
      outcome.status === "pending" ? outcome.nextAttemptAt : null,
      outcome.status === "delivered" ? null : outcome.error,
      now,
      m.id,
      m.attempt,
    ],
  );
  return row !== null;
}

/** Gives a claim back untried (the process is stopping): due again at once, the attempt not counted. */
export async function releaseMessage(db: Db, m: ClaimedMessage, now: number): Promise<void> {
  await db.run(
    `UPDATE messages SET status = 'pending', locked_until = NULL, attempts = attempts - 1, next_attempt_at = ?, updated_at = ?
      WHERE id = ? AND status = 'delivering' AND attempts = ?`,
    [now, now, m.id, m.attempt],
  );
}

export interface MessageRecord {
  id: string;
  userId: string | null;
  userEmail: string | null;
  channel: MessageChannel;
  kind: string;
  status: MessageStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastError: string | null;
  createdAt: number;
}

/** The delivery log's row: the message and its user's address. */
const LOGGED = table("messages", {
  id: text(),
  userId: nullable(text()),
  userEmail: nullable(text("email")),
  channel: text<MessageChannel>(),
  kind: text(),
  status: text<MessageStatus>(),
  attempts: integer(),
  nextAttemptAt: nullable(integer()),
  lastAttemptAt: nullable(integer()),
  lastError: nullable(text()),
  createdAt: integer(),
});

/** The organization's delivery log, newest first (ids are ULIDs). */
export async function listMessages(db: Db, orgId: string, limit: number): Promise<MessageRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT m.id, m.user_id, u.email, m.channel, m.kind, m.status, m.attempts, m.next_attempt_at, m.last_attempt_at, m.last_error, m.created_at
       FROM messages m LEFT JOIN users u ON u.id = m.user_id
      WHERE m.org_id = ? ORDER BY m.id DESC LIMIT ?`,
    [orgId, limit],
  );
  return rows.map(LOGGED.read);
}
