/**
 * Checking an email and password (SPEC §2), shared by the sign-in page and POST /api/auth/sign-in:
 * throttled per email (10 failures in 15 minutes, then refused until the oldest leaves the
 * window), and the same answer — in content and in work done — for an unknown email and a wrong
 * password: both verify against a hash (the dummy one for an unknown email) and record a failure.
 */

import { MINUTE } from "../lib/clock.ts";
import type { Db } from "../store/db.ts";
import { clearSignInFailures, countSignInFailures, recordSignInFailure } from "../store/sign-in-failures.ts";
import { getUserByEmail, normalizeEmail, type User } from "../store/users.ts";
import { dummyPasswordHash, verifyPassword } from "./passwords.ts";

export const SIGN_IN_WINDOW = 15 * MINUTE;
export const SIGN_IN_MAX_FAILURES = 10;
/** Longer inputs cannot match a stored account; they are cut so they cannot bloat the failure table. */
const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;

export type SignInResult =
  | { ok: true; user: User }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfter: number };

export const WRONG_CREDENTIALS = "The email or password is wrong.";

export function throttledMessage(retryAfter: number): string {
  const minutes = Math.ceil(retryAfter / 60);
  return `Too many failed sign-ins for this email. Try again in ${minutes === 1 ? "a minute" : `${minutes} minutes`}.`;
}

export async function checkCredentials(db: Db, rawEmail: string, password: string, now: number): Promise<SignInResult> {
  const email = normalizeEmail(rawEmail).slice(0, MAX_EMAIL + 1);
  const recent = await countSignInFailures(db, email, now - SIGN_IN_WINDOW);
  if (recent.count >= SIGN_IN_MAX_FAILURES) {
    const freesAt = (recent.oldest ?? now) + SIGN_IN_WINDOW;
    return { ok: false, reason: "throttled", retryAfter: Math.max(1, Math.ceil((freesAt - now) / 1000)) };
  }
  const user = email.length <= MAX_EMAIL ? await getUserByEmail(db, email) : null;
  const matches = await verifyPassword(password.slice(0, MAX_PASSWORD), user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !matches || password.length > MAX_PASSWORD) {
    await recordSignInFailure(db, email, now, SIGN_IN_WINDOW);
    return { ok: false, reason: "invalid" };
  }
  await clearSignInFailures(db, email);
  const { passwordHash: _, ...plain } = user;
  return { ok: true, user: plain };
}
