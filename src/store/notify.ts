/**
 * Per-user notification preferences (src/docs/notes/delivery.md; no row means the defaults: mail on, Slack DM off)
 * and the links Crew puts in mails: one-click actions (one user, one action, one verb, single use)
 * and the RFC 8058 one-click unsubscribe. Only a link token's SHA-256 is stored.
 */
import type { InStatement } from "@libsql/client";
import type { Db } from "./db.ts";

export interface NotificationPrefs {
  briefingEmail: boolean;
  briefingSlack: boolean;
}

export const DEFAULT_PREFS: NotificationPrefs = { briefingEmail: true, briefingSlack: false };

export async function getPrefs(db: Db, userId: string): Promise<NotificationPrefs> {
  const row = await db.one<{ briefing_email: number; briefing_slack: number }>(
    "SELECT briefing_email, briefing_slack FROM notification_prefs WHERE user_id = ?",
    [userId],
  );
  return row ? { briefingEmail: row.briefing_email === 1, briefingSlack: row.briefing_slack === 1 } : { ...DEFAULT_PREFS };
}

/** Changes only the given fields (the others keep their stored or default value). */
export function setPrefsStatement(userId: string, changes: Partial<NotificationPrefs>, now: number): InStatement {
  const bit = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);
  return {
    sql: `INSERT INTO notification_prefs (user_id, briefing_email, briefing_slack, updated_at)
          VALUES (?, coalesce(?, ?), coalesce(?, ?), ?)
          ON CONFLICT (user_id) DO UPDATE SET
            briefing_email = coalesce(?, notification_prefs.briefing_email), briefing_slack = coalesce(?, notification_prefs.briefing_slack), updated_at = excluded.updated_at`,
    args: [
      userId,
      bit(changes.briefingEmail),
      DEFAULT_PREFS.briefingEmail ? 1 : 0,
      bit(changes.briefingSlack),
      DEFAULT_PREFS.briefingSlack ? 1 : 0,
      now,
      bit(changes.briefingEmail),
      bit(changes.briefingSlack),
    ],
  };
}

/** The organization's active users with an address, with their preferences: who a briefing may reach. */
export async function listRecipients(db: Db, orgId: string): Promise<({ id: string; email: string; name: string } & NotificationPrefs)[]> {
  const rows = await db.all<{ id: string; email: string; name: string; briefing_email: number | null; briefing_slack: number | null }>(
    `SELECT u.id, u.email, u.name, p.briefing_email, p.briefing_slack FROM users u LEFT JOIN notification_prefs p ON p.user_id = u.id
      WHERE u.org_id = ? AND u.deactivated_at IS NULL AND u.email <> '' ORDER BY u.created_at, u.id`,
    [orgId],
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    name: r.name,
    briefingEmail: r.briefing_email === null ? DEFAULT_PREFS.briefingEmail : r.briefing_email === 1,
    briefingSlack: r.briefing_slack === null ? DEFAULT_PREFS.briefingSlack : r.briefing_slack === 1,
  }));
}

export const ACTION_VERBS = ["approve", "done", "dismiss"] as const;
export type ActionVerb = (typeof ACTION_VERBS)[number];

export type MailLink =
  | { purpose: "action"; userId: string; actionId: string; verb: ActionVerb }
  | { purpose: "unsubscribe"; userId: string };

export function insertMailLinkStatement(tokenHash: string, link: MailLink, now: number, expiresAt: number): InStatement {
  return {
    sql: "INSERT INTO mail_links (token_hash, user_id, purpose, action_id, verb, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    args: [
      tokenHash,
      link.userId,
      link.purpose,
      link.purpose === "action" ? link.actionId : null,
      link.purpose === "action" ? link.verb : null,
      now,
      expiresAt,
    ],
  };
}

export type LinkState = "valid" | "used" | "expired";

/** A link by its token's hash, with whether it still works (its user deactivated: null, as if unknown). */
export async function findMailLink(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<(MailLink & { state: LinkState; orgId: string }) | null> {
  const row = await db.one<{
    user_id: string;
    org_id: string;
    purpose: "action" | "unsubscribe";
    action_id: string | null;
    verb: ActionVerb | null;
    expires_at: number;
    used_at: number | null;
  }>(
    `SELECT l.user_id, u.org_id, l.purpose, l.action_id, l.verb, l.expires_at, l.used_at FROM mail_links l JOIN users u ON u.id = l.user_id
      WHERE l.token_hash = ? AND u.deactivated_at IS NULL`,
    [tokenHash],
  );
  if (!row) return null;
  const state: LinkState = row.used_at !== null ? "used" : row.expires_at <= now ? "expired" : "valid";
  return row.purpose === "action"
    ? { purpose: "action", userId: row.user_id, orgId: row.org_id, actionId: row.action_id ?? "", verb: row.verb ?? "done", state }
    : { purpose: "unsubscribe", userId: row.user_id, orgId: row.org_id, state };
}

/** Marks an action link used; false when another request used it first (or it expired meanwhile). */
export async function claimMailLink(db: Db, tokenHash: string, now: number): Promise<boolean> {
  const changed = await db.run("UPDATE mail_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?", [
    now,
    tokenHash,
    now,
  ]);
  return changed === 1;
}
