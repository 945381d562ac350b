/**
 * Copying a SQLite database into an empty PostgreSQL one (`crew db copy`,
 * src/docs/notes/postgres.md#moving-a-sqlite-install): the target gets Crew's schema by `migrate()`
 * (so it is exactly what a PostgreSQL start would have made), then every table of schema.sql is
 * copied in an order where a row's foreign keys are already there, in chunks, and the row counts of
 * both sides are compared.
 *
 * - The order is derived from schema.sql's `REFERENCES`, so a table added there is copied without
 *   being listed anywhere (test/ops/db-copy.test.ts checks the order against the file).
 * - A chunk is read by its primary key (keyset, not OFFSET: each read is an index range) and
 *   written as one statement: the rows go as one JSON array that `json_populate_recordset` turns
 *   into rows of the table's own type. One statement text per table whatever the NULLs and
 *   values (the engine would inline every NULL, making a new statement per chunk), and no limit on
 *   parameters; PostgreSQL converts each value by its column's type (BYTEA from `\x…` hex).
 * - schema_meta is written last and replaced whole: migrate() wrote this release's `version` (the
 *   source's, since it is migrated first) and an `agents_version` that the copy's inserts into
 *   `agents` and `agent_runs` bumped; the source's rows are the ones that hold.
 * - A target that has any of Crew's tables is refused before anything is written. A copy that
 *   fails midway removes what it made, so the target is empty again for the next attempt.
 */
import type { Db } from "./db.ts";
import { columnNames, currentVersion, migrate, SCHEMA_VERSION, splitSql, tableNames } from "./migrations.ts";

/** Rows per chunk: one read from SQLite, one INSERT into PostgreSQL. */
export const COPY_CHUNK_ROWS = 1000;

/** The copy is refused as asked (a non-empty target, a source this release does not run); nothing was written. */
export class CopyRefused extends Error {}

/** The copy failed while writing; what it had written was removed. */
export class CopyFailed extends Error {}

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface CopyResult {
  counts: TableCount[];
  /** Tables of the source that are not Crew's (not in schema.sql): left out, named here. */
  skipped: string[];
}

/** schema.sql's tables with the tables each references (its `REFERENCES` clauses), in the file's order. */
export function schemaTables(schemaSql: string): { table: string; references: string[] }[] {
  const tables: { table: string; references: string[] }[] = [];
  for (const statement of splitSql(schemaSql)) {
    const name = /^CREATE TABLE (?:IF NOT EXISTS )?(\w+)/i.exec(statement)?.[1];
    if (!name) continue;
    const references = [...statement.matchAll(/\bREFERENCES\s+(\w+)/gi)].map((m) => m[1] as string);
    tables.push({ table: name, references: [...new Set(references)].filter((r) => r !== name) });
  }
  return tables;
}

/** Every table of schema.sql, each after the tables it references; otherwise in the file's order. */
export function copyOrder(schemaSql: string): string[] {
  const tables = schemaTables(schemaSql);
  const known = new Set(tables.map((t) => t.table));
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < tables.length) {
    const next = tables.find((t) => !placed.has(t.table) && t.references.every((r) => placed.has(r) || !known.has(r)));
    if (!next)
      throw new Error(`schema.sql's foreign keys form a cycle among ${tables.filter((t) => !placed.has(t.table)).map((t) => t.table)}`);
    order.push(next.table);
    placed.add(next.table);
  }
  return order;
}

/** Which of `tables` exist in the PostgreSQL database (its current schema). */
export async function existingTables(target: Db, tables: readonly string[]): Promise<string[]> {
  const present = new Set(await tableNames(target));
  return tables.filter((t) => present.has(t));
}

/** Why `target` cannot take a copy, or null when it has none of Crew's tables. */
async function whyNotEmpty(target: Db, tables: readonly string[]): Promise<string | null> {
  const present = await existingTables(target, tables);
  if (present.length === 0) return null;
  const shown = present.length > 6 ? `${present.slice(0, 6).join(", ")} and ${present.length - 6} more` : present.join(", ");
  const what = present.includes("schema_meta")
    ? `it holds a Crew database (schema version ${await currentVersion(target)}; tables ${shown})`
    : `it has Crew's tables ${shown} (without schema_meta: a copy or an install that did not finish)`;
  return `the PostgreSQL database is not empty: ${what}. crew db copy writes only into a database without any of Crew's tables; create a new one (CREATE DATABASE …) or drop these tables first`;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A SQLite table's columns in their order, and the key its rows are read by (its primary key, else rowid). */
async function sqliteColumns(source: Db, table: string): Promise<{ columns: string[]; key: string[] }> {
  const rows = await source.all<{ name: string; pk: number }>("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [table]);
  const key = rows
    .filter((r) => r.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((r) => r.name);
  return { columns: rows.map((r) => r.name), key: key.length > 0 ? key : ["rowid"] };
}

/** A value as JSON can carry it to json_populate_recordset. */
function jsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString("hex")}`;
  if (value instanceof ArrayBuffer) return `\\x${Buffer.from(value).toString("hex")}`;
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** Copies one table chunk by chunk; resolves to the rows copied. */
async function copyTable(source: Db, target: Db, table: string, columns: string[], key: string[], chunkRows: number): Promise<number> {
  const list = columns.map(quoted).join(", ");
  const keyList = key.map(quoted).join(", ");
  // rowid is read under its own name when it is the key (a table without a primary key): it is not a column.
  const extra = key[0] === "rowid" ? ', rowid AS "__copy_key"' : "";
  const keyOf = (row: Record<string, unknown>) => (key[0] === "rowid" ? [row.__copy_key] : key.map((k) => row[k]));
  const insert = `INSERT INTO ${quoted(table)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${quoted(table)}, CAST(? AS json))`;
  let after: unknown[] | null = null;
  let copied = 0;
  for (;;) {
    const where: string = after ? `WHERE (${keyList}) > (${key.map(() => "?").join(", ")})` : "";
    const rows: Record<string, unknown>[] = await source.all(
      `SELECT ${list}${extra} FROM ${quoted(table)} ${where} ORDER BY ${keyList} LIMIT ?`,
      [...((after ?? []) as (string | number)[]), chunkRows],
    );
    if (rows.length === 0) return copied;
    const payload = rows.map((row) => Object.fromEntries(columns.map((c) => [c, jsonValue(row[c])])));
    await target.run(insert, [JSON.stringify(payload)]);
    copied += rows.length;
    after = keyOf(rows[rows.length - 1] as Record<string, unknown>);
    if (rows.length < chunkRows) return copied;
  }
}

async function count(db: Db, table: string): Promise<number> {
  return Number((await db.one<{ n: number }>(`SELECT count(*) AS n FROM ${quoted(table)}`))?.n ?? 0);
}

/** Removes what the copy made (the target had none of these tables before it started). */
async function removeCopy(target: Db, tables: readonly string[]): Promise<void> {
  await target.batch(
    [`DROP TABLE IF EXISTS ${tables.map(quoted).join(", ")} CASCADE`, "DROP FUNCTION IF EXISTS crew_bump_agents_version() CASCADE"],
    "write",
  );
}

export interface CopyOptions {
  chunkRows?: number;
}

/**
 * Copies the SQLite `source` (at this release's schema version) into the PostgreSQL `target`,
 * which must have none of Crew's tables; resolves to the row counts of both sides per table.
 */
export async function copyDatabase(source: Db, target: Db, schemaSql: string, options: CopyOptions = {}): Promise<CopyResult> {
  const chunkRows = options.chunkRows ?? COPY_CHUNK_ROWS;
  if (source.engine !== "sqlite") throw new CopyRefused("the source must be a SQLite database");
  if (target.engine !== "postgres") throw new CopyRefused("the target must be a PostgreSQL database");
  const order = copyOrder(schemaSql);
  const version = await currentVersion(source);
  if (version !== SCHEMA_VERSION) {
    throw new CopyRefused(
      `the SQLite database is at schema version ${version}, this release's is ${SCHEMA_VERSION}: run crew migrate on it first`,
    );
  }
  const inSource = await tableNames(source);
  const missing = order.filter((t) => !inSource.includes(t));
  if (missing.length > 0) throw new CopyRefused(`the SQLite database lacks Crew's tables ${missing.join(", ")}`);
  const skipped = inSource.filter((t) => !order.includes(t)).sort();
  const reason = await whyNotEmpty(target, order);
  if (reason) throw new CopyRefused(reason);

  try {
    await migrate(target, schemaSql);
    const plans = [];
    for (const table of order) {
      const { columns, key } = await sqliteColumns(source, table);
      const targetColumns = new Set(await columnNames(target, table));
      const unknown = columns.filter((c) => !targetColumns.has(c));
      if (unknown.length > 0)
        throw new CopyFailed(`${table}.${unknown.join(`, ${table}.`)} of the SQLite database has no PostgreSQL column`);
      plans.push({ table, columns, key });
    }
    for (const { table, columns, key } of plans) {
      if (table === "schema_meta") continue;
      try {
        await copyTable(source, target, table, columns, key, chunkRows);
      } catch (error) {
        throw new CopyFailed(`copying ${table}: ${firstLine(error)}`);
      }
    }
    const meta = await source.all<{ key: string; value: string }>("SELECT key, value FROM schema_meta ORDER BY key");
    await target.batch(
      [
        "DELETE FROM schema_meta",
        {
          sql: "INSERT INTO schema_meta (key, value) SELECT key, value FROM json_populate_recordset(NULL::schema_meta, CAST(? AS json))",
          args: [JSON.stringify(meta)],
        },
      ],
      "write",
    );
  } catch (error) {
    await removeCopy(target, order).catch(() => {});
    if (error instanceof CopyFailed) throw error;
    throw new CopyFailed(firstLine(error));
  }

  const counts: TableCount[] = [];
  for (const table of order) counts.push({ table, source: await count(source, table), target: await count(target, table) });
  return { counts, skipped };
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
