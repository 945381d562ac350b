/**
 * The one claim of the two outboxes (messages, webhook_deliveries): due rows (pending and due, or
 * delivering with an expired lock) become `delivering` until `lockedUntil`, their attempt counted.
 */
import type { Db } from "../db.ts";

const DUE = "((status = 'pending' AND next_attempt_at <= ?) OR (status = 'delivering' AND locked_until < ?))";

/**
 * Claims up to `limit` due rows of `table` (its `key` column names a row) and answers the
 * `returning` columns, oldest due first. One statement per engine:
 *
 * - SQLite: the outer WHERE repeats the due test, so a row another process claimed first (the
 *   single writer ran its claim before ours) is not taken again;
 * - PostgreSQL: the due rows are locked `FOR UPDATE SKIP LOCKED`, so two processes claiming at
 *   once take different rows, neither waiting for the other (src/docs/notes/postgres.md).
 */
export async function claimDueRows<Row>(
  db: Db,
  outbox: { table: "messages" | "webhook_deliveries"; key: "id" | "rowid"; returning: string },
  now: number,
  lockedUntil: number,
  limit: number,
): Promise<Row[]> {
  const { table, key, returning } = outbox;
  // A read first: an idle poll then never takes the database's write lock, which other processes' requests wait on.
  if (!(await db.one(`SELECT 1 AS x FROM ${table} WHERE ${DUE} LIMIT 1`, [now, now]))) return [];
  const set = "status = 'delivering', locked_until = ?, attempts = attempts + 1, last_attempt_at = ?, updated_at = ?";
  const rows =
    db.engine === "postgres"
      ? await db.all<Row & { claim_next_attempt_at: number; claim_created_at: number }>(
          `WITH due AS (SELECT ${key} AS claimed FROM ${table} WHERE ${DUE} ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
           UPDATE ${table} SET ${set} FROM due WHERE ${table}.${key} = due.claimed
           RETURNING ${returning}, next_attempt_at AS claim_next_attempt_at, created_at AS claim_created_at`,
          [now, now, limit, lockedUntil, now, now],
        )
      : await db.all<Row & { claim_next_attempt_at: number; claim_created_at: number }>(
          `UPDATE ${table} SET ${set}
            WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${DUE} ORDER BY next_attempt_at LIMIT ?)
              AND ${DUE}
            RETURNING ${returning}, next_attempt_at AS claim_next_attempt_at, created_at AS claim_created_at`,
          [lockedUntil, now, now, now, now, limit, now, now],
        );
  // RETURNING follows the engine's row order, not the subquery's: put the oldest due first again (then the oldest written).
  rows.sort((a, b) => a.claim_next_attempt_at - b.claim_next_attempt_at || a.claim_created_at - b.claim_created_at);
  return rows.map(({ claim_next_attempt_at: _n, claim_created_at: _c, ...row }) => row as unknown as Row);
}
