/**
 * The store's SQL is written once, in the dialect both engines read (src/docs/notes/postgres.md#one-sql-two-engines);
 * this turns a statement into PostgreSQL's form at the driver:
 *
 * - placeholders: `?` and `?N` become `$k`. A number is sent typed (`::int8`, or `::float8` when
 *   it has a fraction) because PostgreSQL would otherwise infer `text` for a parameter compared
 *   with another parameter (`? <= ?` compared "9" and "30" as text). A string is sent as `::text`.
 *   A null is written as the literal `NULL`: an untyped null parameter has no type PostgreSQL can
 *   infer in `? IS NULL`, and a typed one cannot go into a column of another type.
 * - `rowid` (SQLite's row address, used to delete or claim rows by batch) becomes `ctid`.
 * - `LIKE` stays `LIKE`, which ignores ASCII case on SQLite and not on PostgreSQL: a statement
 *   that means to ignore case says so (`lower(x) LIKE lower(?)`) on both.
 * - `json_each(x)` (a JSON array's elements, read by their `value` column) becomes
 *   `json_array_elements_text(CAST(x AS json)) AS json_each(value)`.
 *
 * - A string's U+0000 becomes U+FFFD (PostgreSQL's text cannot hold it).
 *
 * Everything else is written in the form both dialects share; what they do not share is decided
 * where it is used, by `db.engine`, and named there (the outbox claim, the schema catalogue).
 */

export type Arg = string | number | bigint | boolean | null | undefined | Uint8Array | ArrayBuffer;

export interface Translated {
  sql: string;
  params: unknown[];
}

const cache = new Map<string, string>();
const MAX_CACHED = 2000;

/** The cast a value is sent with; null is written inline. */
function kindOf(value: unknown): "n" | "i" | "f" | "t" | "b" | "u" {
  if (value === null || value === undefined) return "n";
  if (typeof value === "number") return Number.isInteger(value) ? "i" : "f";
  if (typeof value === "bigint" || typeof value === "boolean") return "i";
  if (typeof value === "string") return "t";
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return "b";
  return "u";
}

const CAST = { i: "::int8", f: "::float8", t: "::text", b: "::bytea", u: "" } as const;

function bindValue(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  // PostgreSQL's text cannot hold U+0000 (SQLite's can): it becomes U+FFFD, the replacement
  // character, so a lookup by such a key finds nothing (404) instead of failing, and a write keeps the rest.
  if (typeof value === "string" && value.includes("\u0000")) return value.replaceAll("\u0000", "\uFFFD");
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  return value;
}

/** `sql` with `?`/`?N` placeholders and positional `args` → PostgreSQL text and its parameters. */
export function toPostgres(sql: string, args: readonly unknown[]): Translated {
  const kinds = args.map(kindOf);
  const key = `${kinds.join("")}\u0000${sql}`;
  const params: unknown[] = [];
  // $k for each original argument that is sent (nulls are inline).
  const numberOf: number[] = [];
  for (let i = 0; i < args.length; i++) {
    if (kinds[i] !== "n") {
      params.push(bindValue(args[i]));
      numberOf[i] = params.length;
    }
  }
  const known = cache.get(key);
  if (known !== undefined) return { sql: known, params };
  const text = rewrite(sql, (index) => (kinds[index] === "n" ? "NULL" : `$${numberOf[index]}${CAST[kinds[index] ?? "u"]}`));
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, text);
  return { sql: text, params };
}

/** Walks the statement outside string literals and quoted names, replacing placeholders and the dialect words. */
function rewrite(sql: string, placeholder: (index: number) => string): string {
  let next = 0;
  const walk = (from: number, to: number): string => {
    let out = "";
    let i = from;
    while (i < to) {
      const ch = sql[i] as string;
      if (ch === "'" || ch === '"') {
        const end = closing(sql, i, ch);
        out += sql.slice(i, end);
        i = end;
        continue;
      }
      if (ch === "-" && sql[i + 1] === "-") {
        const end = sql.indexOf("\n", i);
        i = end === -1 || end > to ? to : end;
        continue;
      }
      if (ch === "?") {
        let j = i + 1;
        while (j < to && /[0-9]/.test(sql[j] as string)) j++;
        const index = j > i + 1 ? Number(sql.slice(i + 1, j)) - 1 : next++;
        out += placeholder(index);
        i = j;
        continue;
      }
      if (/[A-Za-z_]/.test(ch) && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? " ")) {
        let j = i + 1;
        while (j < to && /[A-Za-z0-9_]/.test(sql[j] as string)) j++;
        const word = sql.slice(i, j);
        const upper = word.toUpperCase();
        if (upper === "JSON_EACH" && sql[j] === "(") {
          // `json_each(x)` in a FROM clause, read by its `value` column: the elements of a JSON array.
          const close = matching(sql, j);
          out += `json_array_elements_text(CAST(${walk(j + 1, close)} AS json)) AS json_each(value)`;
          i = close + 1;
          continue;
        }
        if (upper === "ROWID") out += "ctid";
        else out += word;
        i = j;
        continue;
      }
      out += ch;
      i++;
    }
    return out;
  };
  return walk(0, sql.length);
}

/** The index of the parenthesis closing the one at `open`. */
function matching(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      i = closing(sql, i, ch) - 1;
      continue;
    }
    if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  throw new Error(`unbalanced parentheses in: ${sql}`);
}

function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}
