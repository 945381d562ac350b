/**
 * The audit log (src/docs/notes/operating.md#audit-log): one row per event that changes who can do what, or what the
 * deployment holds. Written by the code that makes the change, read by owners (web app) and by
 * `crew audit`. Rows carry ids, emails, key hashes and URLs without query strings — never a
 * secret, a token or a password.
 */
import { newId } from "../lib/random.ts";
import { type Db, parseJson } from "./db.ts";

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

interface AuditRow {
  id: string;
  org_id: string;
  at: number;
  event: string;
  actor_kind: string;
  actor_id: string | null;
  subject: string | null;
  detail: string;
}

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
): { sql: string; args: (string | number | null)[] } {
  return {
    sql: "INSERT INTO audit_events (id, org_id, at, event, actor_kind, actor_id, subject, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    args: [
      newId("aud", now),
      orgId,
      now,
      event,
      actor.kind,
      actor.kind === "user" ? actor.userId : null,
      cleanSubject(subject),
      JSON.stringify(detail),
    ],
  };
}

/**
 * The same row, written only when the statement just before it in the batch changed exactly one row
 * (SQLite's changes()): a write that turned out to be a no-op leaves no audit row.
 */
export function auditStatementIfChanged(...event: Parameters<typeof auditStatement>): ReturnType<typeof auditStatement> {
  const { sql, args } = auditStatement(...event);
  return { sql: sql.replace(/VALUES \((.*)\)$/, "SELECT $1 WHERE changes() = 1"), args };
}

export async function recordAudit(
  db: Db,
  orgId: string,
  event: AuditEventName,
  actor: AuditActor,
  now: number,
  subject: string | null = null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const { sql, args } = auditStatement(orgId, event, actor, now, subject, detail);
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
  const rows = await db.all<AuditRow>(
    `SELECT id, org_id, at, event, actor_kind, actor_id, subject, detail FROM audit_events
      WHERE org_id = ? AND (? IS NULL OR id < ?)${only} ORDER BY id DESC LIMIT ?`,
    [orgId, before ?? null, before ?? null, ...(events ?? []), limit],
  );
  return rows.map((r) => ({
    id: r.id,
    orgId: r.org_id,
    at: r.at,
    event: r.event as AuditEventName,
    actor:
      r.actor_kind === "user" && r.actor_id ? { kind: "user", userId: r.actor_id } : { kind: r.actor_kind === "cli" ? "cli" : "system" },
    subject: r.subject,
    detail: parseJson<Record<string, unknown>>(r.detail, {}),
  }));
}

/** Backups written on this deployment (they are recorded in the default organization's log), newest first. */
export async function listBackupEvents(db: Db, orgId: string, limit: number): Promise<AuditEntry[]> {
  return listAudit(db, orgId, limit, undefined, ["backup.written", "backup.restored"]);
}
