/**
 * Browser sessions, the scheme Lucia documents: a token of 20 random bytes (base32) goes to the
 * cookie; only its SHA-256 is stored as the session id. 30-day lifetime, extended when used in
 * its last 15 days (so at most one write per 15 days per session). Absence is `null`, not an exception.
 */

import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppDeps, AppEnv } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { DAY } from "../lib/clock.ts";
import { randomSecret, sha256Hex } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { deleteExpiredSessions, deleteSession, extendSession, findSession, insertSession } from "../store/auth/sessions.ts";
import { getUserById, type User } from "../store/auth/users.ts";
import type { Db } from "../store/db.ts";
import { principalFor } from "./access.ts";

export const SESSION_COOKIE = "crew_session";
export const SESSION_LIFETIME = 30 * DAY;
export const SESSION_RENEW_WITHIN = 15 * DAY;

export interface Session {
  id: string;
  userId: string;
  /** Carried by every form of the session (hidden field `csrf`), checked beside the Origin. */
  csrfToken: string;
  expiresAt: number;
}

/** The signed-in person as a principal (the session is the credential). */
export const sessionPrincipalOf = (found: ValidSession): Principal =>
  principalFor(found.user.id, found.user, { type: "session", id: found.session.id });

export interface ValidSession {
  session: Session;
  user: User;
  /** The expiry moved: the cookie must be sent again with the new date. */
  renewed: boolean;
}

export function generateSessionToken(): string {
  return randomSecret(20);
}

export async function createSession(db: Db, token: string, userId: string, now: number): Promise<Session> {
  const session: Session = { id: sha256Hex(token), userId, csrfToken: randomSecret(20), expiresAt: now + SESSION_LIFETIME };
  await insertSession(db, session, now);
  return session;
}

/** The session and its user, or null when the token is unknown or expired. Renews in the last 15 days. */
export async function validateSessionToken(db: Db, token: string, now: number): Promise<ValidSession | null> {
  const session = await findSession(db, sha256Hex(token));
  if (!session) return null;
  if (now >= session.expiresAt) {
    await deleteSession(db, session.id);
    return null;
  }
  let renewed = false;
  if (now >= session.expiresAt - SESSION_RENEW_WITHIN) {
    session.expiresAt = now + SESSION_LIFETIME;
    await extendSession(db, session.id, session.expiresAt);
    renewed = true;
  }
  const user = await getUserById(db, session.userId);
  return user ? { session, user, renewed } : null;
}

export async function invalidateSession(db: Db, sessionId: string): Promise<void> {
  await deleteSession(db, sessionId);
}

const secureCookies = (deps: AppDeps) => deps.config.baseUrl.startsWith("https:");

/** HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs), Path=/, Secure on https. */
export function setSessionCookie(deps: AppDeps, c: Context<AppEnv>, token: string, expiresAt: number): void {
  const now = deps.clock.now();
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    secure: secureCookies(deps),
    expires: new Date(expiresAt),
    maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)),
  });
}

export function clearSessionCookie(deps: AppDeps, c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Lax", secure: secureCookies(deps) });
}

/**
 * Signs a user in: a new token every time (never reuse the one the browser brought, which closes
 * session fixation), the previous session of this browser ended, the cookie set.
 */
export async function startSession(deps: AppDeps, c: Context<AppEnv>, userId: string): Promise<Session> {
  const { db, clock } = deps;
  const previous = getCookie(c, SESSION_COOKIE);
  if (previous) await invalidateSession(db, sha256Hex(previous));
  await deleteExpiredSessions(db, clock.now());
  const token = generateSessionToken();
  const session = await createSession(db, token, userId, clock.now());
  setSessionCookie(deps, c, token, session.expiresAt);
  return session;
}

/** Signs out: the session is deleted server-side (the token stops working everywhere) and the cookie cleared. */
export async function endSession(deps: AppDeps, c: Context<AppEnv>): Promise<void> {
  const token = getCookie(c, SESSION_COOKIE);
  if (token) {
    const { db, clock } = deps;
    const found = await validateSessionToken(db, token, clock.now());
    await invalidateSession(db, sha256Hex(token));
    if (found) {
      await recordAudit(db, found.user.orgId, "session.ended", { kind: "user", userId: found.user.id }, clock.now(), found.user.email);
    }
  }
  clearSessionCookie(deps, c);
}

/** The signed-in user of this request, or null. Sends the cookie again when the session was renewed. */
export async function readSession(deps: AppDeps, c: Context<AppEnv>): Promise<ValidSession | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  const { db, clock } = deps;
  const found = await validateSessionToken(db, token, clock.now());
  if (!found) return null;
  c.set("sessionUserId", found.user.id);
  if (found.renewed) setSessionCookie(deps, c, token, found.session.expiresAt);
  return found;
}
