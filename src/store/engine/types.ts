/** The store's interface, which both engines implement (src/store/db.ts opens one). */
import type { InArgs, InStatement, InValue, TransactionMode } from "@libsql/client";

export type { TransactionMode };

/** One statement: SQL with `?`/`?N` placeholders and its positional arguments. */
export interface Statement {
  sql: string;
  args?: InArgs;
}

/** One statement's answer: rows as plain objects (named columns), and the rows it changed. */
export interface StatementResult {
  rows: Record<string, unknown>[];
  rowsAffected: number;
}

/** A boolean SQL expression with its positional arguments (e.g. `EXISTS (…)`), for statements that must hold it to write. */
export interface Condition {
  sql: string;
  args: InValue[];
}

export type Engine = "sqlite" | "postgres";

export interface Store {
  /** Which engine answers: the few statements the two dialects do not share ask (e.g. store/delivery/claim.ts). */
  readonly engine: Engine;
  /** Runs one statement and returns its rows as plain objects of the given shape. */
  all<T>(sql: string, args?: InArgs): Promise<T[]>;
  one<T>(sql: string, args?: InArgs): Promise<T | null>;
  /** Runs a statement that returns no rows; resolves to the number of rows it changed. */
  run(sql: string, args?: InArgs): Promise<number>;
  execute(statement: InStatement): Promise<StatementResult>;
  /** Runs the statements as one transaction, all or none; a write takes the write lock first. */
  batch(statements: InStatement[], mode?: TransactionMode): Promise<StatementResult[]>;
  /**
   * The store for counters whose last commits a crash of the database may lose (the quota windows):
   * on PostgreSQL, connections whose commits do not wait for the WAL flush; on SQLite, this store
   * (WAL with synchronous=NORMAL never waits for one).
   */
  counters(): Store;
  close(): void;
}
