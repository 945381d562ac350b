/**
 * The audit log (src/docs/notes/operating.md#audit-log): one row per event that changes who can do what, or what the
 * deployment holds. Written by the code that makes the change, read by owners (web app) and by
 * `crew audit`. Rows carry ids, emails, key hashes and URLs without query strings — never a
 * secret, a token or a password.
 */

import type { InValue } from "@libsql/client";
import { newId } from "../../lib/random.ts";
import { integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Condition, Db } from "../db.ts";

/** Every event src/docs/notes/operating.md#audit-log names; sources and model settings are written by their own features. */
export const AUDIT_EVENTS = [
  "sign_in.succeeded",
  "sign_in.failed",
  "session.ended",
  "key.created",
  "key.revoked",
  "grant.approved",
  "grant.revoked",
  "user.created",
  "user.deactivated",
  "user.plan_changed",
  "user.role_changed",
  "user.password_reset",
  "webhook.created",
  "webhook.changed",
  "webhook.deleted",
  "source.created",
  "source.changed",
  "source.deleted",
  "model_settings.changed",
  "channel.connected",
  "channel.removed",
  "connection.created",
  "connection.deleted",
  "agent.trigger_secret_created",
  "backup.written",
  "backup.restored",
] as const;
export type AuditEventName = (typeof AUDIT_EVENTS)[number];

/** Who acted: a signed-in user or key holder, someone at the command line, or the server itself. */
export type AuditActor = { kind: "user"; userId: string } | { kind: "cli" } | { kind: "system" };

export interface AuditEntry {
  id: string;
  orgId: string;
  at: number;
  event: AuditEventName;
  actor: AuditActor;
  subject: string | null;
  detail: Record<string, unknown>;
}

/** The audit_events table, in the order inserts name its columns; the actor is stored as a kind and an id. */
const AUDIT_EVENTS_TABLE = table("audit_events", {
  id: text(),
  orgId: text(),
  at: integer(),
  event: text<AuditEventName>(),
  actorKind: text<AuditActor["kind"]>(),
  actorId: nullable(text()),
  subject: nullable(text()),
  detail: json<Record<string, unknown>>({}),
});

/** Longest subject kept: an email or a URL without its query fits. */
const MAX_SUBJECT = 320;

/**
 * A subject as stored: control characters (C0, DEL, C1) and bidirectional overrides become U+FFFD,
 * so a subject someone typed (the email of a failed sign-in) cannot forge lines or terminal
 * sequences in `crew audit` or the web page.
 */
export function cleanSubject(subject: string | null): string | null {
  if (subject === null) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return subject.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "\ufffd").slice(0, MAX_SUBJECT);
}

/** The statement for one audit row, to add to the batch of the write it records. */
export function auditStatement(
  orgId: string,
  event: AuditEventName,
  actor: AuditActor,
  now: number,
  subject: string | null = null,
  detail: Record<string, unknown> = {},
): { sql: string; args: InValue[] } {
  return {
    sql: `INSERT INTO audit_events (${AUDIT_EVENTS_TABLE.insertColumns}) VALUES (${AUDIT_EVENTS_TABLE.placeholders})`,
    args: AUDIT_EVENTS_TABLE.args({
      id: newId("aud", now),
      orgId,
      at: now,
      event,
      actorKind: actor.kind,
      actorId: actor.kind === "user" ? actor.userId : null,
      subject: cleanSubject(subject),
      detail,
    }),
  };
}

/**
 * The same row, written only while `onlyIf` holds when it runs (a condition of rows the batch's
 * earlier statements wrote or locked, src/docs/notes/postgres.md#writes-without-a-global-lock): a
 * write that turned out to be a no-op leaves no audit row.
 */
export function auditStatementIf(onlyIf: Condition, ...event: Parameters<typeof auditStatement>): ReturnType<typeof auditStatement> {
  const { args } = auditStatement(...event);
  return {
    sql: `INSERT INTO audit_events (${AUDIT_EVENTS_TABLE.insertColumns}) SELECT ${AUDIT_EVENTS_TABLE.placeholders} WHERE ${onlyIf.sql}`,
    args: [...args, ...onlyIf.args],
  };
}

export async function recordAudit(db: Db, ...event: Parameters<typeof auditStatement>): Promise<void> {
  const { sql, args } = auditStatement(...event);
  await db.run(sql, args);
}

/** The organization's audit log, newest first. */
export async function listAudit(
  db: Db,
  orgId: string,
  limit: number,
  before?: string,
  events?: readonly AuditEventName[],
): Promise<AuditEntry[]> {
  // Filtered in SQL, so older events of a kind are not lost behind a window of newer others.
  const only = events?.length ? ` AND event IN (${events.map(() => "?").join(", ")})` : "";
  const rows = await db.all<SqlRow>(
    `SELECT id, org_id, at, event, actor_kind, actor_id, subject, detail FROM audit_events
      WHERE org_id = ? AND (? IS NULL OR id < ?)${only} ORDER BY id DESC LIMIT ?`,
    [orgId, before ?? null, before ?? null, ...(events ?? []), limit],
  );
  return rows.map((row) => {
    const { actorKind, actorId, subject, detail, ...head } = AUDIT_EVENTS_TABLE.read(row);
    const actor: AuditActor =
      actorKind === "user" && actorId ? { kind: "user", userId: actorId } : { kind: actorKind === "cli" ? "cli" : "system" };
    // The entry's fields in their documented order (`crew audit --json` prints them so).
    return { ...head, actor, subject, detail };
  });
}

/** Backups written on this deployment (they are recorded in the default organization's log), newest first. */
export async function listBackupEvents(db: Db, orgId: string, limit: number): Promise<AuditEntry[]> {
  return listAudit(db, orgId, limit, undefined, ["backup.written", "backup.restored"]);
}
