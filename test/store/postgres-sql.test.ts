/**
 * The SQLite→PostgreSQL conversion (src/store/engine/postgres-sql.ts), input → output, one row per rule. Pure:
 * the same on both projects; the statements' meaning on a real server is tested by every suite
 * of the postgres project.
 */
import { describe, expect, test } from "vitest";
import { toPostgres } from "../../src/store/engine/postgres-sql.ts";

const bytes = new Uint8Array([1, 2]);

const CASES: { rule: string; sql: string; args: unknown[]; out: string; params: unknown[] }[] = [
  { rule: "no placeholders", sql: "SELECT 1 AS x", args: [], out: "SELECT 1 AS x", params: [] },
  { rule: "an integer is int8", sql: "SELECT ? AS n", args: [7], out: "SELECT $1::int8 AS n", params: [7] },
  { rule: "a fraction is float8", sql: "SELECT ? AS n", args: [0.5], out: "SELECT $1::float8 AS n", params: [0.5] },
  { rule: "a string is text", sql: "WHERE id = ?", args: ["a"], out: "WHERE id = $1::text", params: ["a"] },
  { rule: "a bigint is int8", sql: "SELECT ?", args: [5n], out: "SELECT $1::int8", params: [5n] },
  { rule: "a boolean is int8 0/1", sql: "SELECT ?, ?", args: [true, false], out: "SELECT $1::int8, $2::int8", params: [1, 0] },
  { rule: "bytes are bytea", sql: "SELECT ?", args: [bytes], out: "SELECT $1::bytea", params: [bytes] },
  {
    rule: "null is written inline and numbering skips it",
    sql: "SELECT ? IS NULL, ?",
    args: [null, "x"],
    out: "SELECT NULL IS NULL, $1::text",
    params: ["x"],
  },
  { rule: "undefined is null", sql: "SELECT ?", args: [undefined], out: "SELECT NULL", params: [] },
  {
    rule: "numbered placeholders repeat one parameter",
    sql: "WHERE a = ?1 OR b = ?1 AND c = ?2",
    args: ["x", 3],
    out: "WHERE a = $1::text OR b = $1::text AND c = $2::int8",
    params: ["x", 3],
  },
  {
    rule: "rowid becomes ctid",
    sql: "DELETE FROM t WHERE rowid IN (SELECT rowid FROM t)",
    args: [],
    out: "DELETE FROM t WHERE ctid IN (SELECT ctid FROM t)",
    params: [],
  },
  { rule: "a column containing rowid is left", sql: "SELECT my_rowid FROM t", args: [], out: "SELECT my_rowid FROM t", params: [] },
  {
    rule: "LIKE stays LIKE (case is said where it is meant)",
    sql: "WHERE lower(x) LIKE ?",
    args: ["%a%"],
    out: "WHERE lower(x) LIKE $1::text",
    params: ["%a%"],
  },
  {
    rule: "json_each becomes json_array_elements_text under the same name",
    sql: "SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?",
    args: ["e"],
    out: "SELECT 1 FROM json_array_elements_text(CAST(w.events AS json)) AS json_each(value) WHERE json_each.value = $1::text",
    params: ["e"],
  },
  {
    rule: "a placeholder inside json_each's argument is numbered in order",
    sql: "SELECT value FROM json_each(?) WHERE value <> ?",
    args: ['["a"]', "b"],
    out: "SELECT value FROM json_array_elements_text(CAST($1::text AS json)) AS json_each(value) WHERE value <> $2::text",
    params: ['["a"]', "b"],
  },
  { rule: "? inside a string literal is text", sql: "SELECT '?', ?", args: [1], out: "SELECT '?', $1::int8", params: [1] },
  {
    rule: "a doubled quote stays inside the literal",
    sql: "SELECT 'it''s ? rowid', ?",
    args: [1],
    out: "SELECT 'it''s ? rowid', $1::int8",
    params: [1],
  },
  { rule: "quoted names are left", sql: 'SELECT "rowid" FROM t', args: [], out: 'SELECT "rowid" FROM t', params: [] },
  { rule: "a line comment is dropped", sql: "SELECT ? -- why ?\nFROM t", args: [1], out: "SELECT $1::int8 \nFROM t", params: [1] },
  { rule: "U+0000 in a string becomes U+FFFD", sql: "WHERE k = ?", args: ["a\u0000b"], out: "WHERE k = $1::text", params: ["a\uFFFDb"] },
  {
    rule: "changes() is not rewritten (no emulation: PostgreSQL refuses it)",
    sql: "SELECT changes()",
    args: [],
    out: "SELECT changes()",
    params: [],
  },
];

describe("toPostgres", () => {
  test.each(CASES)("$rule", ({ sql, args, out, params }) => {
    expect(toPostgres(sql, args)).toEqual({ sql: out, params });
  });

  test("the cache keys on the arguments' kinds: one text, two shapes", () => {
    expect(toPostgres("SELECT ?", [1]).sql).toBe("SELECT $1::int8");
    expect(toPostgres("SELECT ?", [null]).sql).toBe("SELECT NULL");
    expect(toPostgres("SELECT ?", ["1"]).sql).toBe("SELECT $1::text");
  });
});
