/** OIDC identities (issue 25): an (issuer, subject) pair linked to one user. */
import type { Db } from "../db.ts";

export async function userIdOfIdentity(db: Db, issuer: string, subject: string): Promise<string | null> {
  const row = await db.one<{ user_id: string }>("SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?", [issuer, subject]);
  return row?.user_id ?? null;
}

/**
 * Links the identity; a second link of the same pair (two sign-ins at once) keeps the first.
 * `emailVerified` false: the identity created its account from an address its provider had not verified.
 */
export async function linkIdentity(
  db: Db,
  issuer: string,
  subject: string,
  userId: string,
  now: number,
  emailVerified = true,
): Promise<void> {
  await db.run(
    "INSERT INTO user_identities (issuer, subject, user_id, created_at, email_verified) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    [issuer, subject, userId, now, emailVerified ? 1 : 0],
  );
}

/** Whether the user's account was created by a sign-in whose email was not verified (src/auth/oidc.ts). */
export async function createdFromUnverifiedEmail(db: Db, userId: string): Promise<boolean> {
  const row = await db.one<{ n: number }>("SELECT 1 AS n FROM user_identities WHERE user_id = ? AND email_verified = 0", [userId]);
  return row !== null;
}
