/**
 * Per-user notification preferences (src/docs/notes/delivery.md; no row means the defaults: mail on, Slack DM off)
 * and the links Crew puts in mails: one-click actions (one user, one action, one verb, single use)
 * and the RFC 8058 one-click unsubscribe. Only a link token's SHA-256 is stored.
 */
import type { InStatement } from "@libsql/client";
import { custom, integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface NotificationPrefs {
  briefingEmail: boolean;
  briefingSlack: boolean;
}

export const DEFAULT_PREFS: NotificationPrefs = { briefingEmail: true, briefingSlack: false };

/** A preference stored 0/1; no row (a LEFT JOIN's NULL) means the default. */
const flag = (fallback: boolean) =>
  custom<boolean>(
    (value) => (value === null || value === undefined ? fallback : value === 1 || value === true),
    (value) => (value ? 1 : 0),
  )();

const PREFS = table("notification_prefs", {
  briefingEmail: flag(DEFAULT_PREFS.briefingEmail),
  briefingSlack: flag(DEFAULT_PREFS.briefingSlack),
});

const RECIPIENT = table("users", { id: text(), email: text(), name: text(), ...PREFS.columns });

export async function getPrefs(db: Db, userId: string): Promise<NotificationPrefs> {
  const row = await db.one<SqlRow>("SELECT briefing_email, briefing_slack FROM notification_prefs WHERE user_id = ?", [userId]);
  return row ? PREFS.read(row) : { ...DEFAULT_PREFS };
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
  const rows = await db.all<SqlRow>(
    `SELECT u.id, u.email, u.name, p.briefing_email, p.briefing_slack FROM users u LEFT JOIN notification_prefs p ON p.user_id = u.id
      WHERE u.org_id = ? AND u.deactivated_at IS NULL AND u.email <> '' ORDER BY u.created_at, u.id`,
    [orgId],
  );
  return rows.map(RECIPIENT.read);
}

export const ACTION_VERBS = ["approve", "done", "dismiss"] as const;
export type ActionVerb = (typeof ACTION_VERBS)[number];

export type MailLink =
  | { purpose: "action"; userId: string; actionId: string; verb: ActionVerb }
  | { purpose: "unsubscribe"; userId: string };

/** The mail_links table, in the order inserts name its columns; only the token's SHA-256 is stored. */
const MAIL_LINKS = table("mail_links", {
  tokenHash: text(),
  userId: text(),
  purpose: text<MailLink["purpose"]>(),
  actionId: nullable(text()),
  verb: nullable(text<ActionVerb>()),
  createdAt: integer(),
  expiresAt: integer(),
  usedAt: nullable(integer()),
});

const INSERTED = MAIL_LINKS.omit("usedAt");

/** A link as a click reads it: with its user's organization. */
const FOUND = table("mail_links", {
  ...MAIL_LINKS.pick("userId", "purpose", "actionId", "verb", "expiresAt", "usedAt").columns,
  orgId: text(),
});

export function insertMailLinkStatement(tokenHash: string, link: MailLink, now: number, expiresAt: number): InStatement {
  return {
    sql: `INSERT INTO mail_links (${INSERTED.insertColumns}) VALUES (${INSERTED.placeholders})`,
    args: INSERTED.args({
      tokenHash,
      userId: link.userId,
      purpose: link.purpose,
      actionId: link.purpose === "action" ? link.actionId : null,
      verb: link.purpose === "action" ? link.verb : null,
      createdAt: now,
      expiresAt,
    }),
  };
}

export type LinkState = "valid" | "used" | "expired";

/** A link by its token's hash, with whether it still works (its user deactivated: null, as if unknown). */
export async function findMailLink(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<(MailLink & { state: LinkState; orgId: string }) | null> {
  const found = await db.one<SqlRow>(
    `SELECT l.user_id, u.org_id, l.purpose, l.action_id, l.verb, l.expires_at, l.used_at FROM mail_links l JOIN users u ON u.id = l.user_id
      WHERE l.token_hash = ? AND u.deactivated_at IS NULL`,
    [tokenHash],
  );
  if (!found) return null;
  const row = FOUND.read(found);
  const state: LinkState = row.usedAt !== null ? "used" : row.expiresAt <= now ? "expired" : "valid";
  return row.purpose === "action"
    ? { purpose: "action", userId: row.userId, orgId: row.orgId, actionId: row.actionId ?? "", verb: row.verb ?? "done", state }
    : { purpose: "unsubscribe", userId: row.userId, orgId: row.orgId, state };
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
