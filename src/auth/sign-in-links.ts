/**
 * One-time sign-in links (src/docs/notes/web-app.md), the decisions behind /welcome (web/users-page.ts) and
 * /reset-password (web/reset-password.ts): the holder opens the link, chooses a password and is
 * signed in; the link works once, before it expires, and only for its purpose. Only the token's
 * SHA-256 is stored.
 */
import { randomSecret, sha256Hex } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { claimSignInLink, insertSignInLink, type LinkPurpose, signInLinkUser } from "../store/auth/sign-in-links.ts";
import { getUserById, type User } from "../store/auth/users.ts";
import type { Db } from "../store/db.ts";
import { hashPassword } from "./passwords.ts";

export type { LinkPurpose };

/** Makes a link for the user; the token goes into the URL, its hash into the store. */
export async function createSignInLink(db: Db, userId: string, purpose: LinkPurpose, now: number, lifetime: number): Promise<string> {
  const token = randomSecret(32);
  await insertSignInLink(db, sha256Hex(token), userId, purpose, now, now + lifetime);
  return token;
}

/** The active user a usable link is for, or null (unknown, used, expired, other purpose, or the user deactivated). */
export async function signInLinkHolder(db: Db, token: string, purpose: LinkPurpose, now: number): Promise<User | null> {
  if (!token) return null;
  const userId = await signInLinkUser(db, sha256Hex(token), purpose, now);
  const user = userId ? await getUserById(db, userId) : null;
  return user && user.deactivatedAt === null ? user : null;
}

/**
 * Sets the holder's password, ends their sessions and uses the link up; null when the link was used
 * meanwhile. A reset is recorded in the audit log; a welcome link's first password is part of the
 * user's creation, recorded when the owner made the user.
 */
export async function useSignInLink(
  db: Db,
  token: string,
  purpose: LinkPurpose,
  password: string,
  clock: { now(): number },
): Promise<User | null> {
  const user = await signInLinkHolder(db, token, purpose, clock.now());
  if (!user) return null;
  const passwordHash = await hashPassword(password);
  // Claimed after the slow hash, in the batch that sets it: a double-submitted form cannot set two passwords.
  if ((await claimSignInLink(db, sha256Hex(token), purpose, passwordHash, clock.now())) !== user.id) return null;
  if (purpose === "reset")
    await recordAudit(db, user.orgId, "user.password_reset", { kind: "user", userId: user.id }, clock.now(), user.email, { via: "link" });
  return user;
}
