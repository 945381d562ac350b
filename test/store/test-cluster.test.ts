/**
 * The test databases themselves (test/helpers/database.ts): on PostgreSQL each call is a new, empty
 * database on the run's cluster that the `postgres` driver reaches; on SQLite a file URL in the
 * test's folder.
 */
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_ENGINE, testDatabaseUrl } from "../helpers/database.ts";
import { tempDir } from "../helpers/server.ts";

const temp = tempDir("crew-test-cluster-");
afterAll(() => temp.cleanup());

describe(`test databases on ${TEST_ENGINE}`, () => {
  it("gives each call its own database", async () => {
    const [a, b] = [await testDatabaseUrl(temp.dir), await testDatabaseUrl(temp.dir, "other")];
    if (TEST_ENGINE === "sqlite") {
      expect([a, b]).toEqual([`file:${temp.dir}/crew.db`, `file:${temp.dir}/other.db`]);
      return;
    }
    expect(a).toMatch(/^postgres:\/\/crew@127\.0\.0\.1:\d+\/crew_crew_[0-9a-f]{12}$/);
    expect(b).toMatch(/^postgres:\/\/crew@127\.0\.0\.1:\d+\/crew_other_[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    for (const url of [a, b]) {
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql<{ one: number; database: string; tables: number }[]>`
          SELECT 1 AS one, current_database() AS database,
                 (SELECT count(*)::int FROM information_schema.tables WHERE table_schema = 'public') AS tables`;
        expect(row).toEqual({ one: 1, database: new URL(url).pathname.slice(1), tables: 0 });
      } finally {
        await sql.end();
      }
    }
  });
});
