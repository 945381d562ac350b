/**
 * One-time sign-in links (SPEC §12), the decisions behind /welcome (web/users-page.ts): an owner's
 * new user opens the link, chooses a password and is signed in; the link works once, before it
 * expires. Only the token's SHA-256 is stored.
 */
import { sha256Hex } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { claimSignInLink, signInLinkUser } from "../store/sign-in-links.ts";
import { getUserById, setUserPassword, type User } from "../store/users.ts";
import { hashPassword } from "./passwords.ts";

/** The active user a usable link is for, or null (unknown, used, expired, or the user deactivated). */
export async function signInLinkHolder(db: Db, token: string, now: number): Promise<User | null> {
  if (!token) return null;
  const userId = await signInLinkUser(db, sha256Hex(token), now);
  const user = userId ? await getUserById(db, userId) : null;
  return user && user.deactivatedAt === null ? user : null;
}

/** Sets the holder's password and uses the link up; null when the link was used meanwhile. */
export async function useSignInLink(db: Db, token: string, password: string, clock: { now(): number }): Promise<User | null> {
  const user = await signInLinkHolder(db, token, clock.now());
  if (!user) return null;
  const passwordHash = await hashPassword(password);
  // Claimed after the slow hash: a double-submitted form cannot set two passwords.
  if ((await claimSignInLink(db, sha256Hex(token), clock.now())) !== user.id) return null;
  await setUserPassword(db, user.id, passwordHash);
  return user;
}
