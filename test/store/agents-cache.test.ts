/**
 * The agents list is cached per store until agents or their runs change (issue 10 item 4): a
 * write through this store, and one through another connection (another process), are both seen
 * by the next read, while reads in between are served from the cache.
 */
import { join } from "node:path";
import Database from "libsql";
import { afterAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { openStore } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrations.ts";
import { ensureDefaultOrgAndAgents } from "../../src/store/orgs/orgs.ts";
import { listAgentsWithRuns } from "../../src/store/runs/agents.ts";
import { runInsertStatement } from "../../src/store/runs/runs.ts";
import { tempDir } from "../helpers/server.ts";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe("agents list cache", () => {
  it("serves the cached list until agents or runs change, in this process or another", async () => {
    const path = join(tmp.dir, "cache.db");
    const db = await openStore({ url: `file:${path}` });
    await migrate(db, readSchema());
    const now = Date.UTC(2026, 10, 24, 3, 0);
    const org = await ensureDefaultOrgAndAgents(db, "UTC", now);
    const first = await listAgentsWithRuns(db, org.id);
    expect(first).toHaveLength(17);
    expect(first.find((a) => a.id === "sales")?.lastStatus).toBeNull();

    // Served from the cache: the agents query is not run again (counted by the statements prepared).
    const prepare = Database.prototype.prepare;
    const prepared: string[] = [];
    Database.prototype.prepare = function (this: Database.Database, sql: string) {
      prepared.push(sql);
      return prepare.call(this, sql);
    } as typeof prepare;
    try {
      await listAgentsWithRuns(db, org.id);
    } finally {
      Database.prototype.prepare = prepare;
    }
    expect(prepared.some((sql) => sql.includes("LEFT JOIN agent_runs"))).toBe(false);

    // A run written through this store.
    await db.execute(
      runInsertStatement({
        id: "run_01KA0000000000000000000001",
        orgId: org.id,
        agentId: "sales",
        status: "ok",
        summary: "done",
        error: null,
        metrics: null,
        hasData: true,
        startedAt: now - 1000,
        finishedAt: now,
      }),
    );
    expect((await listAgentsWithRuns(db, org.id)).find((a) => a.id === "sales")?.lastStatus).toBe("ok");

    // A change made by another connection to the same file.
    const other = new Database(path);
    other.prepare("UPDATE agent_runs SET status = 'error', error = 'boom' WHERE id = ?").run(["run_01KA0000000000000000000001"]);
    other.prepare("UPDATE agents SET schedule = '0 9 * * *' WHERE org_id = ? AND id = 'pulse'").run([org.id]);
    other.close();
    const after = await listAgentsWithRuns(db, org.id);
    expect(after.find((a) => a.id === "sales")?.lastStatus).toBe("error");
    expect(after.find((a) => a.id === "pulse")?.schedule).toBe("0 9 * * *");
    db.close();
  });
});
