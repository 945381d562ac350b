/**
 * Schema versions on either engine (src/docs/notes/postgres.md#schema-and-versions): a fresh
 * database gets schema.sql (converted for PostgreSQL), and later steps run once each, even when two
 * clients upgrade at once.
 */

import { afterAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { openStore } from "../../src/store/db.ts";
import { columnNames, migrate, SCHEMA_VERSION, splitSql, tableNames } from "../../src/store/migrations.ts";
import { ensureDefaultOrgAndAgents } from "../../src/store/orgs/orgs.ts";
import { agentsVersion } from "../../src/store/runs/agents.ts";
import { TEST_ENGINE, testDatabaseUrl } from "../helpers/database.ts";
import { tempDir } from "../helpers/server.ts";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe("schema and migrations", () => {
  it("applies schema.sql to a fresh database and records its version", async () => {
    const url = await testDatabaseUrl(tmp.dir, "fresh");
    const db = await openStore({ url });
    expect(await migrate(db, readSchema())).toBe(SCHEMA_VERSION);
    if (TEST_ENGINE === "sqlite") {
      const mode = await db.execute("PRAGMA journal_mode");
      expect(String(mode.rows[0]?.journal_mode)).toBe("wal");
    }
    // A second start changes nothing.
    expect(await migrate(db, readSchema())).toBe(SCHEMA_VERSION);
    db.close();
    const again = await openStore({ url });
    expect(await tableNames(again)).toEqual(expect.arrayContaining(["actions", "agents", "schema_meta", "webhook_deliveries"]));
    // The agents list cache's version moves with every write to agents, on either engine (a trigger).
    const version = async () => Number(await agentsVersion(again));
    const before = await version();
    await ensureDefaultOrgAndAgents(again, "UTC", 0);
    expect(await version()).toBeGreaterThan(before);
    again.close();
  });

  it("brings an existing database forward through ordered steps, each once, even from two clients at once", async () => {
    const url = await testDatabaseUrl(tmp.dir, "old");
    const a = await openStore({ url });
    const b = await openStore({ url });
    await migrate(a, readSchema(), []);
    const steps = [
      { version: SCHEMA_VERSION + 1, name: "extra table", statements: ["CREATE TABLE extra (id TEXT PRIMARY KEY, n INTEGER) STRICT"] },
      { version: SCHEMA_VERSION + 2, name: "extra note", statements: ["ALTER TABLE extra ADD COLUMN note TEXT"] },
    ];
    const [va, vb] = await Promise.all([migrate(a, readSchema(), steps), migrate(b, readSchema(), steps)]);
    expect([va, vb]).toEqual([SCHEMA_VERSION + 2, SCHEMA_VERSION + 2]);
    expect(await columnNames(a, "extra")).toEqual(["id", "n", "note"]);
    const recorded = await a.all<{ key: string }>("SELECT key FROM schema_meta WHERE key LIKE 'migration:%' ORDER BY key");
    expect(recorded.map((r) => r.key)).toEqual([`migration:${SCHEMA_VERSION + 1}`, `migration:${SCHEMA_VERSION + 2}`]);
    a.close();
    b.close();
  });

  it("splits the schema into statements without comments", () => {
    const statements = splitSql(readSchema());
    expect(statements.length).toBeGreaterThan(20);
    expect(statements.every((s) => !s.startsWith("--"))).toBe(true);
  });
});
