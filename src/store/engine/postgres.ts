/**
 * The PostgreSQL engine (src/docs/notes/postgres.md): the same `Store` as the SQLite engine, on a
 * pool of connections of the `postgres` driver.
 *
 * - Statements arrive in the store's shared dialect and are turned into PostgreSQL's form by
 *   `toPostgres` (placeholders, typed numbers, `rowid`, `LIKE`).
 * - `int8` and `numeric` answers come back as JavaScript numbers and booleans as 1/0, as SQLite
 *   gives them: every `*_at` column is milliseconds (well inside 2^53), counts are small.
 * - A batch is one transaction whose statements are sent together (pipelined, one round trip).
 *   A batch that writes first takes one transaction-scoped advisory lock, so multi-statement
 *   writes run one at a time across every process, as under SQLite's single writer: the store's
 *   read-then-write batches (a conditional claim followed by writes that hold it) keep the meaning
 *   they have on SQLite. A batch using SQLite's `changes()` runs its statements one by one, each
 *   `changes()` replaced by the count the batch's previous write changed.
 * - Single statements are not serialised: each is atomic on its own (`INSERT … ON CONFLICT … DO
 *   UPDATE … WHERE` re-checks its condition on the newest row).
 */
import postgres from "postgres";
import { toPostgres } from "./postgres-sql.ts";
import type { Statement, StatementResult, Store, TransactionMode } from "./types.ts";

/** The advisory lock every writing batch holds (a fixed key: "crew" in ASCII). */
const WRITE_LOCK = 0x63726577;

const asNumber = (x: string) => Number(x);

export interface PostgresOptions {
  url: string;
  /** Connections per process (default 10). */
  max?: number;
  busyTimeoutMs?: number;
}

/** A statement that only reads (a `WITH` may write, so it counts as a write). */
const READS = /^\s*SELECT\b/i;
const CHANGES = /\bchanges\(\)/i;
const CHANGES_ALL = /\bchanges\(\)/gi;

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
    return (await sql.begin(begin, async (tx) => {
      // Sent at once: the driver pipelines a transaction's queries on its one connection, and the
      // server runs them in order, so the lock is held before the first statement runs.
      const lock = writes ? tx.unsafe(`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`) : null;
      if (!statements.some((s) => CHANGES.test(s.sql))) {
        const [, ...results] = await Promise.all([lock, ...statements.map((s) => run(tx, s))]);
        return results;
      }
      await lock;
      // SQLite's changes() (the rows the batch's last write changed) has no PostgreSQL twin: the
      // statements run one by one and each changes() is that count, written in.
      const results: StatementResult[] = [];
      let changed = 0;
      for (const s of statements) {
        const result = await run(tx, { ...s, sql: s.sql.replace(CHANGES_ALL, String(changed)) });
        if (!READS.test(s.sql)) changed = result.rowsAffected;
        results.push(result);
      }
      return results;
    })) as StatementResult[];
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
