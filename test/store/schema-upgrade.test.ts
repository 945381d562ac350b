/**
 * A version-1 database upgraded in place (every step, issue 10's index changes among them) ends with exactly the indexes
 * (columns, directions, partial conditions) a fresh database gets from schema.sql.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { type Db, openStore } from "../../src/store/db.ts";
import { migrate, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { openVersion1Store } from "../helpers/schema-v1.ts";
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

describe("schema upgrade from version 1", () => {
  it("upgrades a version-1 database to the indexes of a fresh one", async () => {
    const fresh = await openStore({ url: `file:${join(tmp.dir, "fresh.db")}` });
    await migrate(fresh, readSchema());
    const expected = await indexes(fresh);
    fresh.close();

    // A database as version 1 shipped it: the new indexes absent, the changed ones in their version-1 shape.
    const old = await openVersion1Store(join(tmp.dir, "old.db"));
    expect(await indexes(old)).not.toEqual(expected);

    expect(await migrate(old, readSchema())).toBe(SCHEMA_VERSION);
    expect(await indexes(old)).toEqual(expected);
    old.close();
  });
});
