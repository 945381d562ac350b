import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { openStore } from "../../src/store/db.ts";
import { migrate, SCHEMA_VERSION, splitSql } from "../../src/store/migrations.ts";
import { tempDir } from "../helpers/server.ts";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function tables(url: string): Promise<string[]> {
  const db = await openStore({ url });
  const rows = await db.execute(
    "SELECT name FROM sqlite_master WHERE type IN ('table','index') AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  db.close();
  return rows.rows.map((r) => String(r.name));
}

describe("schema and migrations", () => {
  it("applies schema.sql to a fresh database and records its version", async () => {
    const db = await openStore({ url: `file:${join(tmp.dir, "fresh.db")}` });
    expect(await migrate(db, readSchema())).toBe(SCHEMA_VERSION);
    const mode = await db.execute("PRAGMA journal_mode");
    expect(String(mode.rows[0]?.journal_mode)).toBe("wal");
    // A second start changes nothing.
    expect(await migrate(db, readSchema())).toBe(SCHEMA_VERSION);
    db.close();
    expect(await tables(`file:${join(tmp.dir, "fresh.db")}`)).toContain("actions");
  });

  it("brings an existing database forward through ordered steps, each once, even from two clients at once", async () => {
    const url = `file:${join(tmp.dir, "old.db")}`;
    const a = await openStore({ url });
    const b = await openStore({ url });
    await migrate(a, readSchema(), []);
    const steps = [
      { version: SCHEMA_VERSION + 1, name: "extra table", statements: ["CREATE TABLE extra (id TEXT PRIMARY KEY) STRICT"] },
      { version: SCHEMA_VERSION + 2, name: "extra note", statements: ["ALTER TABLE extra ADD COLUMN note TEXT"] },
    ];
    const [va, vb] = await Promise.all([migrate(a, readSchema(), steps), migrate(b, readSchema(), steps)]);
    expect([va, vb]).toEqual([SCHEMA_VERSION + 2, SCHEMA_VERSION + 2]);
    const cols = await a.execute("PRAGMA table_info(extra)");
    expect(cols.rows.map((r) => r.name)).toEqual(["id", "note"]);
    a.close();
    b.close();
  });

  it("splits the schema into statements without comments", () => {
    const statements = splitSql(readSchema());
    expect(statements.length).toBeGreaterThan(20);
    expect(statements.every((s) => !s.startsWith("--"))).toBe(true);
  });
});
