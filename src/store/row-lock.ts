/**
 * The row lock a batch takes first when its later statements decide by what they read (a count
 * under a cap, "still unused", "still active"): an UPDATE that changes nothing
 * (`SET c = c`). On PostgreSQL it holds the rows' write locks until the batch commits, so a
 * concurrent batch over the same rows waits at its own first statement and then, each later
 * statement reading afresh at READ COMMITTED, sees what the first one committed. On SQLite the
 * single writer already orders the batches, and the statement is a no-op. No lock wider than those
 * rows is taken (src/docs/notes/postgres.md#writes-without-a-global-lock).
 */
import type { InValue } from "@libsql/client";
import type { Db, Statement } from "./db.ts";

export function rowLockStatement(table: string, column: string, where: string, args: InValue[]): Statement {
  return { sql: `UPDATE ${table} SET ${column} = ${column} WHERE ${where}`, args };
}

/**
 * What a claim's subquery (`WHERE id IN (SELECT id … LIMIT n)`) appends so that two claims at once
 * take different rows, neither waiting for the other: PostgreSQL locks the rows it picks and skips
 * those another transaction holds. SQLite's single writer runs the claims one after another, and
 * the claim's outer WHERE repeats its test.
 */
export function skipLocked(db: Pick<Db, "engine">): string {
  return db.engine === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
}
