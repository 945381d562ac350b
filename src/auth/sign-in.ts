/**
 * Checking an email and password (src/docs/notes/web-and-accounts.md), shared by the sign-in page and POST /api/auth/sign-in:
 * throttled per email (10 failures in 15 minutes, then refused until the oldest leaves the
 * window), and the same answer — in content and in work done — for an unknown email and a wrong
 * password: both verify against a hash (the dummy one for an unknown email) and record a failure.
 *
 * Hashing costs ~0.3 s of CPU, so attempts are also limited per client address (in this process:
 * at most 4 at once, 50 failures per 15 minutes) and password hashing per process
 * (src/auth/passwords.ts): a flood of invented emails gets fast 429s, a real user still signs in.
 */

import { MINUTE } from "../lib/clock.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { clearSignInFailures, countSignInFailures, recordSignInFailure } from "../store/auth/sign-in-failures.ts";
import { isDeactivated } from "../store/auth/user-admin.ts";
import { getUserByEmail, normalizeEmail, type User } from "../store/auth/users.ts";
import type { Db } from "../store/db.ts";
import { dummyPasswordHash, PasswordHashingBusy, verifyPassword } from "./passwords.ts";

export const SIGN_IN_WINDOW = 15 * MINUTE;
export const SIGN_IN_MAX_FAILURES = 10;
/** Per client address (an office behind one NAT shares it, hence more than per email). */
export const ADDRESS_MAX_FAILURES = 50;
/**
 * Hashings one address may hold at once: a fair share of the process's gate (2 running + 8
 * waiting), so three flooding addresses cannot fill it and lock everyone else out.
 */
export const ADDRESS_AT_ONCE = 2;
/** Failures after which an address is flooding: an unknown email from it is refused without hashing. */
export const ADDRESS_FLOODING = 5;
const MAX_TRACKED_ADDRESSES = 10_000;
/** Longer inputs cannot match a stored account; they are cut so they cannot bloat the failure table. */
const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;

export type SignInResult =
  | { ok: true; user: User }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfter: number; message: string };

export const WRONG_CREDENTIALS = "The email or password is wrong.";

const inMinutes = (seconds: number) => {
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "a minute" : `${minutes} minutes`;
};

export function throttledMessage(retryAfter: number): string {
  return `Too many failed sign-ins for this email. Try again in ${inMinutes(retryAfter)}.`;
}

const BUSY = "Too many sign-ins are being checked right now. Try again in a few seconds.";

/** Per-address state of one server (keyed by its database handle, so apps in one process do not share it). */
interface AddressState {
  inFlight: number;
  failures: number[];
}
const addressesByDb = new WeakMap<Db, Map<string, AddressState>>();

function addressState(db: Db, address: string): AddressState {
  let map = addressesByDb.get(db);
  if (!map) {
    map = new Map();
    addressesByDb.set(db, map);
  }
  let state = map.get(address);
  if (!state) {
    if (map.size >= MAX_TRACKED_ADDRESSES) {
      for (const [key, value] of map) if (value.inFlight === 0) map.delete(key); // forget the idle ones
    }
    state = { inFlight: 0, failures: [] };
    map.set(address, state);
  }
  return state;
}

/**
 * checkCredentials with the per-address limits around it. `address` is the client's
 * (src/http/client-address.ts).
 */
export async function checkSignIn(db: Db, address: string, email: string, password: string, now: number): Promise<SignInResult> {
  const state = addressState(db, address);
  state.failures = state.failures.filter((t) => t > now - SIGN_IN_WINDOW);
  if (state.failures.length >= ADDRESS_MAX_FAILURES) {
    const retryAfter = Math.max(1, Math.ceil(((state.failures[0] ?? now) + SIGN_IN_WINDOW - now) / 1000));
    return {
      ok: false,
      reason: "throttled",
      retryAfter,
      message: `Too many failed sign-ins from your address. Try again in ${inMinutes(retryAfter)}.`,
    };
  }
  if (state.inFlight >= ADDRESS_AT_ONCE) return { ok: false, reason: "throttled", retryAfter: 1, message: BUSY };
  state.inFlight++;
  try {
    const result = await checkCredentials(db, email, password, now, state.failures.length >= ADDRESS_FLOODING);
    if (!result.ok && result.reason === "invalid") state.failures.push(now);
    return result;
  } catch (error) {
    if (error instanceof PasswordHashingBusy) {
      // A busy answer counts against the address too, or a flood is never throttled.
      state.failures.push(now);
      return { ok: false, reason: "throttled", retryAfter: 1, message: BUSY };
    }
    throw error;
  } finally {
    state.inFlight--;
  }
}

/** `cheapUnknown`: the address is flooding, so an email no user has is refused without hashing. */
export async function checkCredentials(
  db: Db,
  rawEmail: string,
  password: string,
  now: number,
  cheapUnknown = false,
): Promise<SignInResult> {
  const email = normalizeEmail(rawEmail).slice(0, MAX_EMAIL + 1);
  const recent = await countSignInFailures(db, email, now - SIGN_IN_WINDOW);
  if (recent.count >= SIGN_IN_MAX_FAILURES) {
    const freesAt = (recent.oldest ?? now) + SIGN_IN_WINDOW;
    const retryAfter = Math.max(1, Math.ceil((freesAt - now) / 1000));
    return { ok: false, reason: "throttled", retryAfter, message: throttledMessage(retryAfter) };
  }
  const user = email.length <= MAX_EMAIL ? await getUserByEmail(db, email) : null;
  if (!user && cheapUnknown) {
    await recordSignInFailure(db, email, now, SIGN_IN_WINDOW);
    return { ok: false, reason: "invalid" };
  }
  const matches = await verifyPassword(password.slice(0, MAX_PASSWORD), user?.passwordHash ?? (await dummyPasswordHash()));
  // A deactivated user's password still verifies (the same work), but the answer is the wrong-credentials one.
  if (!user || !matches || password.length > MAX_PASSWORD || (await isDeactivated(db, user.id))) {
    await recordSignInFailure(db, email, now, SIGN_IN_WINDOW);
    // Only a failure for a user of the deployment is an organization's event (in that user's
    // organization). An unknown email belongs to none: written to no organization's log, an owner
    // cannot tell "nobody has this email" from "someone of another organization has it", and
    // invented emails cannot grow the log (the sign-in throttle's rows are kept for its window only).
    if (user) await recordAudit(db, user.orgId, "sign_in.failed", { kind: "system" }, now, user.email);
    return { ok: false, reason: "invalid" };
  }
  await clearSignInFailures(db, email);
  await recordAudit(db, user.orgId, "sign_in.succeeded", { kind: "user", userId: user.id }, now, user.email);
  const { passwordHash: _, ...plain } = user;
  return { ok: true, user: plain };
}
