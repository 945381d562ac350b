/**
 * The SQLite engine (src/docs/notes/storage-and-speed.md#the-database-file).
 *
 * A local file is ONE native connection (the `libsql` driver), opened in WAL mode with
 * synchronous=NORMAL (≈6× the write throughput of the default), foreign keys on
 * and a busy timeout, so several processes can share the file. Every statement is prepared once
 * and runs synchronously; a multi-statement write is `BEGIN IMMEDIATE` … `COMMIT` on that same
 * connection within one synchronous call, so nothing else of this process can interleave, and the
 * write lock is taken up front (no deadlock upgrading a read lock when another process writes).
 * @libsql/client would re-prepare every statement and pool several connections, of which only
 * the first got the pragmas. A remote database (`libsql://`, `http(s)://`, `ws(s)://`) goes
 * through @libsql/client throughout.
 */
import { createClient, type InArgs, type InStatement, type TransactionMode } from "@libsql/client";
import Database from "libsql";
import type { StatementResult, Store } from "./types.ts";

/** The pragmas of every local connection (asserted by test/store/connection.test.ts). */
// secure_delete: deleted rows (webhook secrets, sessions) are overwritten, not left readable in free pages.
export const LOCAL_PRAGMAS = ["journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "secure_delete = ON"] as const;

/** `file:path?query` → path; an empty path or `:memory:` is an in-memory database. */
export function localPath(url: string): string {
  let path = url.slice("file:".length).split("?")[0] ?? "";
  if (path.startsWith("//")) path = path.slice(2);
  return path === "" || path.includes(":memory:") ? ":memory:" : path;
}

/** Dynamic SQL (filters, IN lists) makes a bounded but open set of texts: start over past this. */
const MAX_PREPARED = 500;

const statementOf = (s: InStatement): { sql: string; args: InArgs } =>
  typeof s === "string" ? { sql: s, args: [] } : { sql: s.sql, args: s.args ?? [] };

/** The native driver binds numbers, strings, bigints, buffers and null; the client also took booleans. */
function bindable(args: InArgs): unknown[] {
  if (!Array.isArray(args)) throw new Error("store statements use positional arguments");
  return args.map((a) => (typeof a === "boolean" ? (a ? 1 : 0) : a === undefined ? null : a));
}

export function openLocal(path: string, busyTimeoutMs: number): Store {
  const conn = new Database(path, { timeout: busyTimeoutMs });
  for (const pragma of LOCAL_PRAGMAS) conn.exec(`PRAGMA ${pragma}`);
  const prepared = new Map<string, Database.Statement>();

  const prepare = (sql: string): Database.Statement => {
    let statement = prepared.get(sql);
    if (!statement) {
      if (prepared.size >= MAX_PREPARED) prepared.clear();
      statement = conn.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };

  const executeNow = (s: InStatement): StatementResult => {
    const { sql, args } = statementOf(s);
    const statement = prepare(sql);
    if (statement.reader) {
      const rows = statement.all(bindable(args)) as Record<string, unknown>[];
      // The driver reports no changes for a statement that returns rows: with RETURNING, each row
      // is one changed row (as @libsql/client counts them).
      return { rows, rowsAffected: /\bRETURNING\b/i.test(sql) ? rows.length : 0 };
    }
    return { rows: [], rowsAffected: Number(statement.run(bindable(args)).changes) };
  };

  const batchNow = (statements: InStatement[], mode: TransactionMode): StatementResult[] => {
    conn.exec(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
    try {
      const results = statements.map(executeNow);
      conn.exec("COMMIT");
      return results;
    } catch (error) {
      if (conn.inTransaction) conn.exec("ROLLBACK");
      throw error;
    }
  };

  // Async signatures for one interface with the remote store; the work itself is synchronous.
  const store: Store = {
    engine: "sqlite",
    counters: () => store,
    async all<T>(sql: string, args: InArgs = []) {
      return prepare(sql).all(bindable(args)) as T[];
    },
    async one<T>(sql: string, args: InArgs = []) {
      return ((prepare(sql).all(bindable(args)) as T[])[0] ?? null) as T | null;
    },
    async run(sql: string, args: InArgs = []) {
      return executeNow({ sql, args }).rowsAffected;
    },
    async execute(statement) {
      return executeNow(statement);
    },
    async batch(statements, mode = "deferred") {
      return batchNow(statements, mode);
    },
    close() {
      prepared.clear();
      conn.close();
    },
  };
  return store;
}

export function openRemote(url: string, authToken: string | undefined, busyTimeoutMs: number): Store {
  const client = createClient({ url, authToken, timeout: busyTimeoutMs, intMode: "number" });
  const toResult = (r: { rows: unknown[]; rowsAffected: number }): StatementResult => ({
    rows: r.rows as Record<string, unknown>[],
    rowsAffected: r.rowsAffected,
  });
  const store: Store = {
    engine: "sqlite",
    counters: () => store,
    async all<T>(sql: string, args: InArgs = []) {
      return (await client.execute({ sql, args })).rows as unknown as T[];
    },
    async one<T>(sql: string, args: InArgs = []) {
      return (((await client.execute({ sql, args })).rows as unknown as T[])[0] ?? null) as T | null;
    },
    async run(sql: string, args: InArgs = []) {
      return (await client.execute({ sql, args })).rowsAffected;
    },
    async execute(statement) {
      return toResult(await client.execute(statement));
    },
    async batch(statements, mode = "deferred") {
      return (await client.batch(statements, mode)).map(toResult);
    },
    close() {
      client.close();
    },
  };
  return store;
}
