/**
 * The store with a span per statement and per batch (src/docs/notes/tracing.md), when the process
 * traces: `db.system.name`, the statement's operation (`SELECT`, `INSERT`, …) and first table,
 * never its arguments or its text. Not wrapped at all when tracing is off.
 */
import { inSpan } from "../../lib/tracing.ts";
import type { Statement, Store } from "./types.ts";

const OPERATION = /^\s*(?:WITH\b[\s\S]*?\)\s*)?(SELECT|INSERT|UPDATE|DELETE|WITH|VACUUM|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT)\b/i;
const TABLE = /\b(?:FROM|INTO|UPDATE|TABLE)\s+([A-Za-z_][A-Za-z0-9_]*)/i;

function summary(sql: string): { operation: string; table: string | undefined } {
  return { operation: (OPERATION.exec(sql)?.[1] ?? "statement").toUpperCase(), table: TABLE.exec(sql)?.[1] };
}

export function traced(store: Store): Store {
  const system = store.engine === "postgres" ? "postgresql" : "sqlite";
  const one = <T>(sql: string, work: () => Promise<T>): Promise<T> => {
    const { operation, table } = summary(sql);
    return inSpan(
      table ? `${operation} ${table}` : operation,
      { "db.system.name": system, "db.operation.name": operation, ...(table ? { "db.collection.name": table } : {}) },
      work,
      { kind: "client" },
    );
  };
  const textOf = (s: Statement | string) => (typeof s === "string" ? s : s.sql);
  let counters: Store | null = null;
  const wrapped: Store = {
    engine: store.engine,
    all: (sql, args) => one(sql, () => store.all(sql, args)),
    one: (sql, args) => one(sql, () => store.one(sql, args)),
    run: (sql, args) => one(sql, () => store.run(sql, args)),
    execute: (statement) => one(textOf(statement), () => store.execute(statement)),
    batch: (statements, mode) =>
      inSpan(
        "transaction",
        { "db.system.name": system, "db.operation.name": "BATCH", "db.operation.batch.size": statements.length },
        () => store.batch(statements, mode),
        { kind: "client" },
      ),
    counters: () => {
      const inner = store.counters();
      if (inner === store) return wrapped;
      counters ??= traced(inner);
      return counters;
    },
    close: () => store.close(),
  };
  return wrapped;
}
