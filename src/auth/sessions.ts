/**
 * Browser sessions, the scheme Lucia documents: a token of 20+ random bytes (base32) goes to
 * the cookie; only its SHA-256 is stored as the session id. 30-day lifetime, extended when used
 * in its last 15 days (one write at most per 15 days). Absence is `null`, not an exception.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../app.ts";
import { DAY } from "../lib/clock.ts";
import { randomSecret, sha256Hex } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { deleteSession, extendSession, findSession, insertSession } from "../store/sessions.ts";
import { getUserById, type User } from "../store/users.ts";

export const SESSION_COOKIE = "crew_session";
const LIFETIME = 30 * DAY;
const RENEW_WITHIN = 15 * DAY;

export interface Session {
  id: string;
  userId: string;
  csrfToken: string;
  expiresAt: number;
}

export function generateSessionToken(): string {
  return randomSecret(20);
}

export async function createSession(db: Db, token: string, userId: string, now: number): Promise<Session> {
  const session: Session = { id: sha256Hex(token), userId, csrfToken: randomSecret(20), expiresAt: now + LIFETIME };
  await insertSession(db, session, now);
  return session;
}

/** The session and its user, or null when the token is unknown or expired. Renews in the last 15 days. */
export async function validateSessionToken(db: Db, token: string, now: number): Promise<{ session: Session; user: User } | null> {
  const session = await findSession(db, sha256Hex(token));
  if (!session) return null;
  if (now >= session.expiresAt) {
    await deleteSession(db, session.id);
    return null;
  }
  if (now >= session.expiresAt - RENEW_WITHIN) {
    session.expiresAt = now + LIFETIME;
    await extendSession(db, session.id, session.expiresAt);
  }
  const user = await getUserById(db, session.userId);
  return user ? { session, user } : null;
}

export async function invalidateSession(db: Db, sessionId: string): Promise<void> {
  await deleteSession(db, sessionId);
}

export function setSessionCookie(c: Context<AppEnv>, token: string, expiresAt: number): void {
  const { config } = c.get("deps");
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    secure: config.baseUrl.startsWith("https:"),
    expires: new Date(expiresAt),
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  const { config } = c.get("deps");
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: config.baseUrl.startsWith("https:") });
}

/** The signed-in user of this request, or null. Refreshes the cookie when the session was renewed. */
export async function readSession(c: Context<AppEnv>): Promise<{ session: Session; user: User } | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  const { db, clock } = c.get("deps");
  const before = await validateSessionToken(db, token, clock.now());
  if (before && before.session.expiresAt > clock.now() + LIFETIME - 1000) setSessionCookie(c, token, before.session.expiresAt);
  return before;
}
