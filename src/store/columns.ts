/**
 * A table's columns declared once: the JavaScript field, its SQL column (the field in snake_case
 * unless named) and how a value crosses between them. From one declaration come the SELECT list,
 * the row mapper, the INSERT column list with its placeholders and the positional arguments of a
 * record, so a column added to a table is added in one place.
 *
 * Both engines answer integers as numbers and booleans as 1/0 (engine/postgres.ts), so a column
 * reads what either engine returns.
 */
import type { InValue } from "@libsql/client";
import { parseJson, type Store } from "./db.ts";

/** A row as both engines answer it: named columns. */
export type SqlRow = Record<string, unknown>;

/** What a column reads from a row and writes as an argument. */
export interface Column<T> {
  /** The SQL column; undefined: the field's name in snake_case. */
  readonly name: string | undefined;
  read(value: unknown): T;
  // A method, not a function property: a Column<"a" | "b"> then fits where any column is wanted.
  write(value: T): InValue;
}

/** A kind of column: how it reads and how it writes; `custom` for a stored form of the table's own. */
export const custom =
  <T>(read: (value: unknown) => T, write: (value: T) => InValue) =>
  (name?: string): Column<T> => ({ name, read, write });

const kind = custom;

/** Text; `T` narrows it to a union of words (a status, a plan). The engines return strings. */
export const text = <T extends string = string>(name?: string) =>
  kind<T>(
    (value) => value as T,
    (value) => value,
  )(name);

export const integer = kind<number>(
  (value) => Number(value),
  (value) => value,
);

/** Stored 0/1. */
export const boolean = kind<boolean>(
  (value) => value === 1 || value === true,
  (value) => (value ? 1 : 0),
);

/** JSON text; a missing or unreadable value reads as `fallback`, undefined is written as NULL. */
export const json = <T>(fallback: T, name?: string) =>
  kind<T>(
    (value) => parseJson<T>(value, fallback),
    (value) => (value === undefined ? null : JSON.stringify(value)),
  )(name);

/** A JSON list stored as NULL when empty (evidence): reads back as []. */
export const jsonList = <T>(name?: string) =>
  kind<T[]>(
    (value) => parseJson<T[]>(value, []),
    (value) => (value.length ? JSON.stringify(value) : null),
  )(name);

/** The column, or NULL. */
export const nullable = <T>(column: Column<T>): Column<T | null> => ({
  name: column.name,
  read: (value) => (value === null || value === undefined ? null : column.read(value)),
  write: (value) => (value === null ? null : column.write(value)),
});

/** Any declaration: each field keeps its own column type. */
export type Columns = Record<string, Column<unknown>>;

/** The record a declaration reads: each field typed by its column. */
export type RecordOf<S extends Columns> = { [K in keyof S]: S[K] extends Column<infer T> ? T : never };

/** The record a table reads: `RowOf<typeof ACTIONS>`. */
export type RowOf<T> = T extends Table<infer S> ? RecordOf<S> : never;

export interface Table<S extends Columns> {
  readonly table: string;
  readonly fields: readonly (keyof S & string)[];
  /** The declaration itself, to build another from it (`{ ...T.columns, extra: text() }`). */
  readonly columns: S;
  /** The SQL column of a field. */
  column(field: keyof S & string): string;
  /** `id, title, contact_id`, or with a table alias `a.id AS id, a.title AS title, a.contact_id AS contact_id`. */
  select(alias?: string): string;
  /** A row's typed record. */
  read(row: SqlRow): RecordOf<S>;
  /** `id, title, contact_id`: the INSERT column list, in declaration order. */
  readonly insertColumns: string;
  /** `?, ?, ?`: one placeholder per column. */
  readonly placeholders: string;
  /** The positional arguments of a record, in declaration order. */
  args(record: RecordOf<S>): InValue[];
  /** The same table with only some of its fields, in the order given. */
  pick<K extends keyof S & string>(...fields: K[]): Table<Pick<S, K>>;
  /** The same table without some of its fields, the others in declaration order. */
  omit<K extends keyof S & string>(...fields: K[]): Table<Omit<S, K>>;
  /** Runs a query and reads each row. */
  all(db: Store, sql: string, args?: InValue[]): Promise<RecordOf<S>[]>;
  /** Runs a query and reads its first row, or null. */
  one(db: Store, sql: string, args?: InValue[]): Promise<RecordOf<S> | null>;
}

const snake = (field: string) => field.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);

export function table<S extends Columns>(name: string, columns: S): Table<S> {
  const fields = Object.keys(columns) as (keyof S & string)[];
  const sqlOf = (field: keyof S & string) => columns[field]!.name ?? snake(field);
  const names = fields.map(sqlOf);
  const read = (row: SqlRow) => {
    const record: Record<string, unknown> = {};
    for (const field of fields) record[field] = columns[field]!.read(row[sqlOf(field)]);
    return record as RecordOf<S>;
  };
  return {
    table: name,
    fields,
    columns,
    column: sqlOf,
    select: (alias) => (alias ? names.map((n) => `${alias}.${n} AS ${n}`) : names).join(", "),
    read,
    insertColumns: names.join(", "),
    placeholders: names.map(() => "?").join(", "),
    args: (record) => fields.map((field) => columns[field]!.write(record[field])),
    pick: (...picked) => table(name, Object.fromEntries(picked.map((f) => [f, columns[f]])) as Pick<S, (typeof picked)[number]>),
    omit: (...omitted) =>
      table(
        name,
        Object.fromEntries(fields.filter((f) => !(omitted as string[]).includes(f)).map((f) => [f, columns[f]])) as Omit<
          S,
          (typeof omitted)[number]
        >,
      ),
    all: async (db, sql, args) => (await db.all<SqlRow>(sql, args)).map(read),
    one: async (db, sql, args) => {
      const row = await db.one<SqlRow>(sql, args);
      return row ? read(row) : null;
    },
  };
}
