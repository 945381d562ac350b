/** One-time sign-in links an owner makes for a new user (SPEC §12): only the token's SHA-256 is stored. */
import type { Db } from "./db.ts";

export async function insertSignInLink(db: Db, tokenHash: string, userId: string, now: number, expiresAt: number): Promise<void> {
  await db.run("INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [
    tokenHash,
    userId,
    now,
    expiresAt,
  ]);
}

/** The user a usable (unused, unexpired) link is for, or null. */
export async function signInLinkUser(db: Db, tokenHash: string, now: number): Promise<string | null> {
  const row = await db.one<{ user_id: string }>(
    "SELECT user_id FROM sign_in_links WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
    [tokenHash, now],
  );
  return row?.user_id ?? null;
}

/** Marks the link used in one statement, so two tabs cannot both use it; the user's id when this call won. */
export async function claimSignInLink(db: Db, tokenHash: string, now: number): Promise<string | null> {
  const row = await db.one<{ user_id: string }>(
    "UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id",
    [now, tokenHash, now],
  );
  return row?.user_id ?? null;
}
