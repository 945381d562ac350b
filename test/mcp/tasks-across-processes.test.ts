/**
 * Issue 35 item 5: MCP tasks live in the database. Two server processes on one database (a
 * second, spawned process; on PostgreSQL in the postgres project): a `crew_run_agent` task made
 * through one is answered by the other for the credential that made it — `tasks/get` and
 * `tasks/cancel` — and is unknown to every other credential, of the same user or not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/lib/clock.ts";
import { modernPost } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

let s: TestServer;
let other: SpawnedServer;
beforeAll(async () => {
  // Both processes on the time of day (the spawned one reads the system clock; a task expires by it).
  s = await startServer({ clock: new ManualClock(Date.now()) });
  other = await spawnServer({
    DATABASE_URL: s.config.databaseUrl,
    CREW_SECRET: "test-secret-test-secret-test-secret-00",
    LOG_LEVEL: "silent",
  });
}, 60_000);
afterAll(async () => {
  await other?.stop();
  await s?.close();
});

const TASKS = { "io.modelcontextprotocol/tasks": {} };
const post = (base: string, key: string, method: string, name: string, params: Record<string, unknown>) =>
  modernPost(base, key, method, params, { name, capabilities: { extensions: TASKS } });

describe("tasks across processes", () => {
  it("a task made through one process is answered by the other for its creator, and unknown to anyone else", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const sameUserOtherKey = await s.createKey(user, ["admin"]);
    const { key: stranger } = await s.userWithKey("operator", ["admin"]);

    const created = await post(s.url, key, "tools/call", "crew_run_agent", { name: "crew_run_agent", arguments: { agent: "pulse" } });
    expect(created.json.result, created.text).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.json.result.taskId as string;

    let task: any;
    for (let i = 0; i < 100; i++) {
      const res = await post(other.url, key, "tasks/get", taskId, { taskId });
      expect(res.status, res.text).toBe(200);
      task = res.json.result;
      expect(task, res.text).toBeTruthy();
      if (task.status !== "working") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(task).toMatchObject({ taskId, status: "completed" });
    expect(task.result.structuredContent).toMatchObject({ agentId: "pulse", status: "ok" });
    expect((await post(other.url, key, "tasks/cancel", taskId, { taskId })).json.result).toMatchObject({ resultType: "complete" });
    expect((await post(s.url, key, "tasks/get", taskId, { taskId })).json.result.status).toBe("completed");

    for (const [who, base, credential] of [
      ["another key of the same user", other.url, sameUserOtherKey],
      ["another user", other.url, stranger],
      ["another user, on the first process", s.url, stranger],
    ] as const) {
      const get = await post(base, credential, "tasks/get", taskId, { taskId });
      expect(get.json.error, `${who}: ${get.text}`).toMatchObject({ code: -32602, message: `Unknown task: ${taskId}.` });
      expect(get.text).not.toContain("pulse");
      const cancel = await post(base, credential, "tasks/cancel", taskId, { taskId });
      expect(cancel.json.error?.code, who).toBe(-32602);
    }
  }, 30_000);
});
