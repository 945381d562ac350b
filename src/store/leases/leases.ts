/**
 * Leases: a named row held by one process until it expires, so that one process among those
 * sharing the database does a job (the scheduler's leader, the retention pass, a scheduled backup).
 * src/background/ takes and hands them back; every check-and-set is one atomic statement.
 */
import type { Db } from "../db.ts";

/**
 * Takes or renews the named lease for `holder` until `expiresAt`: one atomic upsert that succeeds
 * only when the lease is free, expired, or already ours. Resolves to whether `holder` holds it.
 */
export async function takeLease(db: Db, name: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
  const row = await db.one<{ holder: string }>(
    `INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE leases.expires_at < ?4 OR leases.holder = excluded.holder
     RETURNING holder`,
    [name, holder, expiresAt, now],
  );
  return row?.holder === holder;
}

export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.execute({ sql: "DELETE FROM leases WHERE name = ? AND holder = ?", args: [name, holder] });
}

/** Who holds the lease now, if anyone (a running server leads the scheduler: src/agents/scheduler.ts). */
export async function activeLeader(db: Db, leaseName: string, now: number): Promise<string | null> {
  const row = await db.one<{ holder: string }>("SELECT holder FROM leases WHERE name = ? AND expires_at >= ?", [leaseName, now]);
  return row?.holder ?? null;
}
