/**
 * The store as one explicit value: `openStore()` → { engine, all, one, run, execute, batch, close },
 * on one of two engines (src/docs/notes/postgres.md):
 *
 * - SQLite (libSQL), the default: a local file (`file:`), or a remote libSQL server
 *   (`libsql://`, `http(s)://`, `ws(s)://`) — engine/sqlite.ts;
 * - PostgreSQL 15 or newer (`postgres://`, `postgresql://`) — engine/postgres.ts.
 *
 * Statements are written once, in the SQL both engines read (engine/postgres-sql.ts turns it into
 * PostgreSQL's form); the few statements they do not share branch on `engine` where they are, and the few failures the store recognises (a unique key taken, a CHECK
 * refused) are recognised for both below.
 */

import { isPostgresUrl } from "../config.ts";
import { tracingEnabled } from "../lib/tracing.ts";
import { openPostgres } from "./engine/postgres.ts";
import { localPath, openLocal, openRemote } from "./engine/sqlite.ts";
import { traced } from "./engine/traced.ts";
import type { Store } from "./engine/types.ts";

export type { Condition, Engine, Statement, StatementResult, Store, TransactionMode } from "./engine/types.ts";

/** The store as the rest of the code names it. */
export type Db = Store;

export interface OpenOptions {
  url: string;
  authToken?: string;
  busyTimeoutMs?: number;
}

export { LOCAL_PRAGMAS } from "./engine/sqlite.ts";

const MIN_POSTGRES = 150_000;

/** Opens the store; in a process that traces, with a span per statement (engine/traced.ts). */
export async function openStore(options: OpenOptions): Promise<Store> {
  const store = await openEngine(options);
  return tracingEnabled() ? traced(store) : store;
}

async function openEngine({ url, authToken, busyTimeoutMs = 10_000 }: OpenOptions): Promise<Store> {
  if (url.startsWith("file:")) return openLocal(localPath(url), busyTimeoutMs);
  if (isPostgresUrl(url)) {
    const store = openPostgres({ url, busyTimeoutMs });
    // Fail at start, with the server's own words, rather than at the first request; and on a
    // server older than the schema needs (CREATE OR REPLACE TRIGGER, PostgreSQL 14; tested on 15).
    const row = await store.one<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    if (Number(row?.v) < MIN_POSTGRES) {
      store.close();
      throw new Error(`PostgreSQL 15 or newer is needed; this server is version ${Math.floor(Number(row?.v) / 10_000)}`);
    }
    return store;
  }
  return openRemote(url, authToken, busyTimeoutMs);
}

/**
 * Whether `error` is a unique key of `table` (on `column`, when named) already taken: SQLite says
 * "UNIQUE constraint failed: table.column", PostgreSQL answers SQLSTATE 23505 naming the table
 * and, in its detail, the key's columns.
 */
export function isUniqueViolation(error: unknown, table: string, column?: string): boolean {
  const e = error as { code?: string; table_name?: string; detail?: string } | null;
  if (e && e.code === "23505") return e.table_name === table && (column === undefined || (e.detail ?? "").includes(`(${column})`));
  return String(error).includes(`UNIQUE constraint failed: ${table}.${column ?? ""}`);
}

/** Whether `error` is a CHECK constraint refusing a row (SQLite's message; PostgreSQL's SQLSTATE 23514). */
export function isCheckViolation(error: unknown): boolean {
  if ((error as { code?: string } | null)?.code === "23514") return true;
  return /CHECK constraint failed/i.test(String(error));
}

export function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== "string") return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}
