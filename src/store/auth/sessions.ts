import { integer, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface StoredSession {
  id: string;
  userId: string;
  csrfToken: string;
  expiresAt: number;
}

/** The sessions table, in the order inserts name its columns; the id is the token's SHA-256. */
const SESSIONS = table("sessions", { id: text(), userId: text(), csrfToken: text(), createdAt: integer(), expiresAt: integer() });

const SESSION = SESSIONS.omit("createdAt");

export async function insertSession(db: Db, s: StoredSession, now: number): Promise<void> {
  await db.run(
    `INSERT INTO sessions (${SESSIONS.insertColumns}) VALUES (${SESSIONS.placeholders})`,
    SESSIONS.args({ ...s, createdAt: now }),
  );
}

export async function findSession(db: Db, id: string): Promise<StoredSession | null> {
  const row = await db.one<SqlRow>("SELECT id, user_id, csrf_token, expires_at FROM sessions WHERE id = ?", [id]);
  return row ? SESSION.read(row) : null;
}

export async function extendSession(db: Db, id: string, expiresAt: number): Promise<void> {
  await db.run("UPDATE sessions SET expires_at = ? WHERE id = ?", [expiresAt, id]);
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.run("DELETE FROM sessions WHERE id = ?", [id]);
}

/** Ends every session of the user (an identity was linked to the account: src/auth/oidc.ts). */
export async function deleteSessionsOfUser(db: Db, userId: string): Promise<void> {
  await db.run("DELETE FROM sessions WHERE user_id = ?", [userId]);
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<void> {
  await db.run("DELETE FROM sessions WHERE expires_at <= ?", [now]);
}
