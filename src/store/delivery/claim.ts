/**
 * The one claim of the two outboxes (messages, webhook_deliveries): due rows (pending and due, or
 * delivering with an expired lock) become `delivering` until `lockedUntil`, their attempt counted.
 */
import type { Db } from "../db.ts";

const DUE = "((status = 'pending' AND next_attempt_at <= ?) OR (status = 'delivering' AND locked_until < ?))";

/**
 * Claims up to `limit` due rows of `table` (its `key` column names a row) and answers the
 * `returning` columns. One statement: the outer WHERE repeats the due test, so a row another
 * process claimed first is not taken again.
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
  return db.all<Row>(
    `UPDATE ${table} SET status = 'delivering', locked_until = ?, attempts = attempts + 1, last_attempt_at = ?, updated_at = ?
      WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${DUE} ORDER BY next_attempt_at LIMIT ?)
        AND ${DUE}
      RETURNING ${returning}`,
    [lockedUntil, now, now, now, now, limit, now, now],
  );
}
