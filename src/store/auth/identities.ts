/** OIDC identities (issue 25): an (issuer, subject) pair linked to one user. */
import type { Db } from "../db.ts";

export async function userIdOfIdentity(db: Db, issuer: string, subject: string): Promise<string | null> {
  const row = await db.one<{ user_id: string }>("SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?", [issuer, subject]);
  return row?.user_id ?? null;
}

/** Links the identity; a second link of the same pair (two sign-ins at once) keeps the first. */
export async function linkIdentity(db: Db, issuer: string, subject: string, userId: string, now: number): Promise<void> {
  await db.run("INSERT INTO user_identities (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", [
    issuer,
    subject,
    userId,
    now,
  ]);
}
