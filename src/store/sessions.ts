import type { Db } from "./db.ts";

export interface SessionRow {
  id: string;
  userId: string;
  csrfToken: string;
  expiresAt: number;
}

export async function insertSession(db: Db, s: SessionRow, now: number): Promise<void> {
  await db.run("INSERT INTO sessions (id, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)", [
    s.id,
    s.userId,
    s.csrfToken,
    now,
    s.expiresAt,
  ]);
}

export async function findSession(db: Db, id: string): Promise<SessionRow | null> {
  const row = await db.one<{ id: string; user_id: string; csrf_token: string; expires_at: number }>(
    "SELECT id, user_id, csrf_token, expires_at FROM sessions WHERE id = ?",
    [id],
  );
  return row ? { id: row.id, userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at } : null;
}

export async function extendSession(db: Db, id: string, expiresAt: number): Promise<void> {
  await db.run("UPDATE sessions SET expires_at = ? WHERE id = ?", [expiresAt, id]);
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.run("DELETE FROM sessions WHERE id = ?", [id]);
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<void> {
  await db.run("DELETE FROM sessions WHERE expires_at <= ?", [now]);
}
