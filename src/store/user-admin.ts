/**
 * Administration of users (SPEC §14): listing, deactivation, password reset links. Deactivation
 * is one batch that records the user as deactivated and ends everything they hold — sessions
 * deleted, keys, grants and OAuth tokens revoked — so their next request is refused, and an
 * audit row in the same transaction.
 */
import type { Plan } from "../domain.ts";
import { type AuditActor, auditStatement } from "./audit.ts";
import type { Db } from "./db.ts";

export interface UserListing {
  id: string;
  email: string;
  name: string;
  plan: Plan;
  createdAt: number;
  deactivatedAt: number | null;
  activeKeys: number;
}

export async function listUsers(db: Db, orgId: string): Promise<UserListing[]> {
  const rows = await db.all<{
    id: string;
    email: string;
    name: string;
    plan: string;
    created_at: number;
    deactivated_at: number | null;
    keys: number;
  }>(
    `SELECT u.id, u.email, u.name, u.plan, u.created_at, d.at AS deactivated_at,
            (SELECT count(*) FROM api_keys k WHERE k.user_id = u.id AND k.revoked_at IS NULL) AS keys
       FROM users u LEFT JOIN user_deactivations d ON d.user_id = u.id
      WHERE u.org_id = ? ORDER BY u.created_at, u.id`,
    [orgId],
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    name: r.name,
    plan: r.plan as Plan,
    createdAt: r.created_at,
    deactivatedAt: r.deactivated_at,
    activeKeys: r.keys,
  }));
}

export async function isDeactivated(db: Db, userId: string): Promise<boolean> {
  // Issue 13's users.deactivated_at and this table both mark it (the lead may fold them into one).
  const row = await db.one(
    "SELECT 1 AS x FROM users WHERE id = ?1 AND deactivated_at IS NOT NULL UNION ALL SELECT 1 FROM user_deactivations WHERE user_id = ?1",
    [userId],
  );
  return row !== null;
}

/** Deactivates a user and ends their sessions, keys and grants; false when they were deactivated already. */
export async function deactivateUser(
  db: Db,
  user: { id: string; orgId: string; email: string },
  actor: AuditActor,
  now: number,
): Promise<boolean> {
  const [inserted] = await db.batch(
    [
      { sql: "INSERT OR IGNORE INTO user_deactivations (user_id, at) VALUES (?, ?)", args: [user.id, now] },
      { sql: "UPDATE users SET deactivated_at = coalesce(deactivated_at, ?) WHERE id = ?", args: [now, user.id] },
      { sql: "DELETE FROM sessions WHERE user_id = ?", args: [user.id] },
      { sql: "UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", args: [now, user.id] },
      {
        sql: `UPDATE oauth_tokens SET revoked_at = ? WHERE revoked_at IS NULL
                AND grant_id IN (SELECT id FROM oauth_grants WHERE user_id = ?)`,
        args: [now, user.id],
      },
      { sql: "UPDATE oauth_grants SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", args: [now, user.id] },
      { sql: "DELETE FROM password_resets WHERE user_id = ?", args: [user.id] },
      auditStatement(user.orgId, "user.deactivated", actor, now, user.email),
    ],
    "write",
  );
  return (inserted?.rowsAffected ?? 0) > 0;
}

export async function insertPasswordReset(db: Db, tokenHash: string, userId: string, now: number, expiresAt: number): Promise<void> {
  await db.run("INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [
    tokenHash,
    userId,
    now,
    expiresAt,
  ]);
}

/** The user a reset link is for, while it is unused and unexpired (the page shows its form). */
export async function usablePasswordReset(db: Db, tokenHash: string, now: number): Promise<string | null> {
  const row = await db.one<{ user_id: string }>(
    "SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
    [tokenHash, now],
  );
  return row?.user_id ?? null;
}

/**
 * Uses a reset link once: marks it used and sets the new password hash in one batch, only while
 * it is unused and unexpired (two submissions cannot both win). Resolves to the user id, or null.
 */
export async function consumePasswordReset(
  db: Db,
  tokenHash: string,
  passwordHash: string,
  now: number,
): Promise<{ userId: string; orgId: string; email: string } | null> {
  const [claimed] = await db.batch(
    [
      {
        sql: `UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                AND user_id NOT IN (SELECT user_id FROM user_deactivations)
              RETURNING user_id`,
        args: [now, tokenHash, now],
      },
      // changes(): only when the statement before claimed the link (a second submission changes nothing).
      {
        sql: "UPDATE users SET password_hash = ? WHERE changes() = 1 AND id = (SELECT user_id FROM password_resets WHERE token_hash = ?)",
        args: [passwordHash, tokenHash],
      },
      // The old password may be what leaked: every session signed in with it ends.
      {
        sql: "DELETE FROM sessions WHERE user_id IN (SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at = ?)",
        args: [tokenHash, now],
      },
    ],
    "write",
  );
  const userId = claimed?.rows[0]?.user_id;
  if (typeof userId !== "string") return null;
  const user = await db.one<{ org_id: string; email: string }>("SELECT org_id, email FROM users WHERE id = ?", [userId]);
  return user ? { userId, orgId: user.org_id, email: user.email } : null;
}

/** Sets a password directly (`crew user reset-password --password`) and ends the user's sessions. */
export async function setPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.batch(
    [
      { sql: "UPDATE users SET password_hash = ? WHERE id = ?", args: [passwordHash, userId] },
      { sql: "DELETE FROM sessions WHERE user_id = ?", args: [userId] },
    ],
    "write",
  );
}
