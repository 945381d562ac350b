/**
 * Issue 10's schema step: a version-1 database upgraded in place ends with exactly the indexes
 * (columns, directions, partial conditions) a fresh database gets from schema.sql.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { type Db, openStore } from "../../src/store/db.ts";
import { ISSUE10_SCHEMA, migrate, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { tempDir } from "../helpers/server.ts";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function indexes(db: Db): Promise<string[]> {
  const rows = (await db.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"))
    .rows;
  const out: string[] = [];
  for (const r of rows) {
    const cols = (await db.execute(`SELECT name, desc FROM pragma_index_xinfo('${r.name}') WHERE key = 1 ORDER BY seqno`)).rows;
    const where = /\bWHERE\b(.*)$/is.exec(String(r.sql))?.[1]?.trim() ?? "";
    out.push(
      `${r.name} ON ${r.tbl_name} (${cols.map((c) => `${c.name}${c.desc ? " DESC" : ""}`).join(", ")})${where ? ` WHERE ${where}` : ""}`,
    );
  }
  return out;
}

describe("issue 10 schema step", () => {
  it("upgrades a version-1 database to the indexes of a fresh one", async () => {
    const fresh = await openStore({ url: `file:${join(tmp.dir, "fresh.db")}` });
    await migrate(fresh, readSchema());
    const expected = await indexes(fresh);
    fresh.close();

    // A version-1 database: the new indexes absent, the changed ones in their version-1 shape.
    const old = await openStore({ url: `file:${join(tmp.dir, "old.db")}` });
    await migrate(old, readSchema(), []);
    for (const sql of ISSUE10_SCHEMA) {
      const name = /INDEX (?:IF NOT EXISTS )?(\w+)/.exec(sql)?.[1];
      if (sql.startsWith("CREATE") && name) await old.execute(`DROP INDEX IF EXISTS ${name}`);
    }
    await old.execute("CREATE INDEX actions_queue ON actions (org_id, priority_rank, id)");
    await old.execute("CREATE INDEX standups_latest ON standups (org_id, mode, generated_at)");
    await old.execute("UPDATE schema_meta SET value = '1' WHERE key = 'version'");
    expect(await indexes(old)).not.toEqual(expected);

    expect(await migrate(old, readSchema())).toBe(SCHEMA_VERSION);
    expect(await indexes(old)).toEqual(expected);
    old.close();
  });
});
