import { type Db, one } from "./db.ts";

/**
 * Takes one request from a user's window if any is left, atomically in SQL, so processes
 * sharing the database never admit more than `limit` in a window. Returns the count used after
 * this request, or null when the window is spent (a refused request takes nothing).
 */
export async function takeQuota(db: Db, userId: string, windowStart: number, limit: number): Promise<number | null> {
  const row = await one<{ used: number }>(
    db,
    `INSERT INTO quota_windows (user_id, window_start, used) VALUES (?, ?, 1)
     ON CONFLICT (user_id, window_start) DO UPDATE SET used = used + 1 WHERE used < ?
     RETURNING used`,
    [userId, windowStart, limit],
  );
  return row ? row.used : null;
}

export async function purgeQuotaWindowsBefore(db: Db, windowStart: number): Promise<void> {
  await db.execute({ sql: "DELETE FROM quota_windows WHERE window_start < ?", args: [windowStart] });
}
