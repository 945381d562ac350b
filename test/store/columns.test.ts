/**
 * The column helper (src/store/columns.ts): one declaration gives the SELECT list, the row mapper,
 * the INSERT columns and placeholders and a record's arguments; a record written through it reads
 * back equal from the test's engine (SQLite, or PostgreSQL in the postgres project).
 */
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { boolean, integer, json, jsonList, nullable, table, text } from "../../src/store/columns.ts";
import { openStore } from "../../src/store/db.ts";
import { testDatabaseUrl } from "../helpers/database.ts";
import { tempDir } from "../helpers/server.ts";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const things = table("things", {
  id: text(),
  status: text<"open" | "done">(),
  nameKey: text(),
  note: nullable(text()),
  count: integer(),
  dueAt: nullable(integer()),
  enabled: boolean(),
  meta: json<{ a: number } | null>(null),
  evidence: jsonList<string>(),
  contact: nullable(text("contact_ref")),
});

describe("table()", () => {
  it("names each column in snake_case unless named, in declaration order", () => {
    expect(things.insertColumns).toBe("id, status, name_key, note, count, due_at, enabled, meta, evidence, contact_ref");
    expect(things.placeholders).toBe("?, ?, ?, ?, ?, ?, ?, ?, ?, ?");
    expect(things.select()).toBe(things.insertColumns);
    expect(things.pick("id", "nameKey").select("t")).toBe("t.id AS id, t.name_key AS name_key");
    expect(things.omit("status", "nameKey", "note", "count", "dueAt", "enabled", "meta", "evidence").select()).toBe("id, contact_ref");
    expect(things.column("dueAt")).toBe("due_at");
  });

  it("writes booleans as 0/1, JSON as text, an empty list as NULL", () => {
    const args = things.args({
      id: "t1",
      status: "open",
      nameKey: "x",
      note: null,
      count: 3,
      dueAt: null,
      enabled: true,
      meta: { a: 1 },
      evidence: [],
      contact: "c1",
    });
    expect(args).toEqual(["t1", "open", "x", null, 3, null, 1, '{"a":1}', null, "c1"]);
  });

  it("reads a row into a typed record: 0/1 as booleans, JSON parsed, NULL kept, bad JSON as the fallback", () => {
    const record = things.read({
      id: "t1",
      status: "done",
      name_key: "x",
      note: null,
      count: 2,
      due_at: 5,
      enabled: 0,
      meta: "not json",
      evidence: '["e"]',
      contact_ref: null,
    });
    expect(record).toEqual({
      id: "t1",
      status: "done",
      nameKey: "x",
      note: null,
      count: 2,
      dueAt: 5,
      enabled: false,
      meta: null,
      evidence: ["e"],
      contact: null,
    });
    expectTypeOf(record.status).toEqualTypeOf<"open" | "done">();
    expectTypeOf(record.dueAt).toEqualTypeOf<number | null>();
    expectTypeOf(record.evidence).toEqualTypeOf<string[]>();
  });

  it("round-trips a record through the database", async () => {
    const db = await openStore({ url: await testDatabaseUrl(tmp.dir, "columns") });
    // BIGINT where SQLite says INTEGER: PostgreSQL's type for the store's integer columns (engine/postgres-schema.ts).
    const int = db.engine === "postgres" ? "BIGINT" : "INTEGER";
    await db.run(
      `CREATE TABLE things (id TEXT PRIMARY KEY, status TEXT, name_key TEXT, note TEXT, count ${int}, due_at ${int},
        enabled ${int}, meta TEXT, evidence TEXT, contact_ref TEXT)`,
    );
    const written = {
      id: "t1",
      status: "open" as const,
      nameKey: "x",
      note: "n",
      count: 7,
      dueAt: null,
      enabled: true,
      meta: { a: 2 },
      evidence: ["one", "two"],
      contact: null,
    };
    await db.run(`INSERT INTO things (${things.insertColumns}) VALUES (${things.placeholders})`, things.args(written));
    expect(await things.one(db, `SELECT ${things.select("t")} FROM things t WHERE t.id = ?`, ["t1"])).toEqual(written);
    expect(await things.all(db, `SELECT ${things.select()} FROM things`)).toEqual([written]);
    expect(await things.one(db, `SELECT ${things.select()} FROM things WHERE id = ?`, ["none"])).toBeNull();
    db.close();
  });
});
