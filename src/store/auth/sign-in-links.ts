/**
 * One-time links where a user chooses a password and is signed in (src/docs/notes/web-app.md): 'welcome' when an
 * owner creates the user (/welcome), 'reset' from `crew user reset-password` (/reset-password). Only
 * the token's SHA-256 is stored.
 */
import type { Db } from "../db.ts";
import { rowLockStatement } from "../row-lock.ts";

export type LinkPurpose = "welcome" | "reset";

export async function insertSignInLink(
  db: Db,
  tokenHash: string,
  userId: string,
  purpose: LinkPurpose,
  now: number,
  expiresAt: number,
): Promise<void> {
  await db.run("INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at, purpose) VALUES (?, ?, ?, ?, ?)", [
    tokenHash,
    userId,
    now,
    expiresAt,
    purpose,
  ]);
}

/** The user a usable (unused, unexpired) link of that purpose is for, or null. */
export async function signInLinkUser(db: Db, tokenHash: string, purpose: LinkPurpose, now: number): Promise<string | null> {
  const row = await db.one<{ user_id: string }>(
    "SELECT user_id FROM sign_in_links WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?",
    [tokenHash, purpose, now],
  );
  return row?.user_id ?? null;
}

/**
 * Uses a link once, in one batch: marks it used, sets the new password hash and ends the user's
 * sessions (the old password may be what leaked), only while the link is unused, unexpired and its
 * user active — two submissions cannot both win. The user's id when this call won, else null.
 */
export async function claimSignInLink(
  db: Db,
  tokenHash: string,
  purpose: LinkPurpose,
  passwordHash: string,
  now: number,
): Promise<string | null> {
  // The link while it can be used; each statement holds it again. The first one locks the link's
  // row, so a second submission waits there and then finds the link used in every statement after it.
  const usable = `token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
    AND user_id IN (SELECT id FROM users WHERE deactivated_at IS NULL)`;
  const link = [tokenHash, purpose, now];
  const results = await db.batch(
    [
      rowLockStatement("sign_in_links", "used_at", usable, link),
      {
        sql: `UPDATE users SET password_hash = ? WHERE id = (SELECT user_id FROM sign_in_links WHERE ${usable})`,
        args: [passwordHash, ...link],
      },
      { sql: `DELETE FROM sessions WHERE user_id = (SELECT user_id FROM sign_in_links WHERE ${usable})`, args: link },
      { sql: `UPDATE sign_in_links SET used_at = ? WHERE ${usable} RETURNING user_id`, args: [now, ...link] },
    ],
    "write",
  );
  const claimed = results.at(-1);
  const userId = claimed?.rows[0]?.user_id;
  return typeof userId === "string" ? userId : null;
}
