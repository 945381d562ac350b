/** Failed sign-ins per email (src/docs/notes/web-and-accounts.md throttling): one row per failure, pruned as the window moves. */
import type { Db } from "../db.ts";

export async function recordSignInFailure(db: Db, email: string, now: number, windowMs: number): Promise<void> {
  await db.batch(
    [
      { sql: "DELETE FROM sign_in_failures WHERE email = ? AND failed_at <= ?", args: [email, now - windowMs] },
      { sql: "INSERT INTO sign_in_failures (email, failed_at) VALUES (?, ?)", args: [email, now] },
    ],
    "write",
  );
}

/** Failures for an email within the window, and the oldest of them (when the window frees a slot). */
export async function countSignInFailures(db: Db, email: string, since: number): Promise<{ count: number; oldest: number | null }> {
  const row = await db.one<{ n: number; oldest: number | null }>(
    "SELECT count(*) AS n, min(failed_at) AS oldest FROM sign_in_failures WHERE email = ? AND failed_at > ?",
    [email, since],
  );
  return { count: row?.n ?? 0, oldest: row?.oldest ?? null };
}

export async function clearSignInFailures(db: Db, email: string): Promise<void> {
  await db.run("DELETE FROM sign_in_failures WHERE email = ?", [email]);
}
