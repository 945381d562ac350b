/**
 * The PostgreSQL engine (src/docs/notes/postgres.md): the same `Store` as the SQLite engine, on a
 * pool of connections of the `postgres` driver.
 *
 * - Statements arrive in the store's shared dialect and are turned into PostgreSQL's form by
 *   `toPostgres` (placeholders, typed numbers, `rowid`).
 * - `int8` and `numeric` answers come back as JavaScript numbers and booleans as 1/0, as SQLite
 *   gives them: every `*_at` column is milliseconds (well inside 2^53), counts are small.
 * - A batch is one transaction whose statements are sent together (pipelined, one round trip), at
 *   READ COMMITTED. No lock wider than the rows a write touches: a batch whose later statements
 *   rely on an earlier claim writes that reliance as a row condition (the claim's own value, or a
 *   row its first statement locked), so it means on PostgreSQL what it means under SQLite's single
 *   writer (src/docs/notes/postgres.md#writes-without-a-global-lock). A read-only batch runs at
 *   REPEATABLE READ READ ONLY, one snapshot for all its statements.
 * - Nothing relies on a connection's session beyond its start-up settings, so a pooler in
 *   transaction mode works (src/docs/notes/postgres.md#behind-pgbouncer).
 */
import postgres from "postgres";
import { toPostgres } from "./postgres-sql.ts";
import type { Statement, StatementResult, Store, TransactionMode } from "./types.ts";

const asNumber = (x: string) => Number(x);

export interface PostgresOptions {
  url: string;
  /** Connections per process (default 10). */
  max?: number;
  busyTimeoutMs?: number;
}

/** A statement that only reads (a `WITH` may write, so it counts as a write). */
const READS = /^\s*SELECT\b/i;

export function openPostgres(options: PostgresOptions): Store {
  const main = storeOn(pool(options, {}));
  let counters: Store | null = null;
  return {
    ...main,
    // Counters whose last commits a crash of the database may lose (the quota windows): their
    // commits do not wait for the WAL flush, as every commit of SQLite's WAL with synchronous=NORMAL
    // (src/docs/notes/benchmark.md#postgresql: every authenticated request takes from its quota).
    // Visibility is unchanged: the next statement of any process sees the commit.
    counters() {
      counters ??= storeOn(pool({ ...options, max: 4 }, { synchronous_commit: "off" }));
      return counters;
    },
    close() {
      main.close();
      counters?.close();
    },
  };
}

function pool({ url, max = 10, busyTimeoutMs = 10_000 }: PostgresOptions, settings: Record<string, string>): postgres.Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: Math.ceil(busyTimeoutMs / 1000),
    // force_custom_plan: a prepared statement is planned for its own values each time. Its generic
    // plan (what PostgreSQL may switch to after five runs) walks the whole primary key for a
    // cursor page past a rare rank: 382 ms at 1M actions, against 0.1 ms planned for the values
    // (src/docs/notes/benchmark.md#postgresql).
    connection: {
      application_name: "crew",
      lock_timeout: busyTimeoutMs,
      statement_timeout: 5 * 60_000,
      plan_cache_mode: "force_custom_plan",
      ...settings,
    },
    types: {
      int8: { to: 20, from: [20, 1700], parse: asNumber, serialize: String },
      bool: { to: 16, from: [16], parse: (x: string) => (x === "t" ? 1 : 0), serialize: (x: unknown) => (x ? "t" : "f") },
    },
  } as postgres.Options<Record<string, postgres.PostgresType>>);
}

function storeOn(sql: postgres.Sql): Store {
  type Runner = Pick<postgres.Sql, "unsafe">;
  const run = async (on: Runner, s: Statement): Promise<StatementResult> => {
    if (s.args !== undefined && !Array.isArray(s.args)) throw new Error("store statements use positional arguments");
    const { sql: text, params } = toPostgres(s.sql, s.args ?? []);
    const result = await on.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
    return { rows: result as unknown as Record<string, unknown>[], rowsAffected: result.count ?? 0 };
  };

  const batch = async (statements: Statement[], mode: TransactionMode): Promise<StatementResult[]> => {
    const writes = mode === "write" || statements.some((s) => !READS.test(s.sql));
    const begin = writes ? "" : "isolation level repeatable read read only";
    // Sent at once: the driver pipelines a transaction's queries on its one connection, and the
    // server runs them in order.
    return (await sql.begin(begin, (tx) => Promise.all(statements.map((s) => run(tx, s))))) as StatementResult[];
  };

  const store: Store = {
    engine: "postgres",
    counters: () => store,
    async all<T>(text: string, args: Statement["args"] = []) {
      return (await run(sql, { sql: text, args })).rows as T[];
    },
    async one<T>(text: string, args: Statement["args"] = []) {
      return ((await run(sql, { sql: text, args })).rows[0] ?? null) as T | null;
    },
    async run(text: string, args: Statement["args"] = []) {
      return (await run(sql, { sql: text, args })).rowsAffected;
    },
    async execute(statement) {
      return run(sql, typeof statement === "string" ? { sql: statement } : statement);
    },
    async batch(statements, mode = "deferred") {
      return batch(
        statements.map((s) => (typeof s === "string" ? { sql: s } : s)),
        mode,
      );
    },
    close() {
      void sql.end({ timeout: 5 });
    },
  };
  return store;
}
