/**
 * `subscriptions/listen` at 2026-07-28 (issue 23 item 4): a stream on one server process is told
 * `crew://briefing` (and the other regenerated resources) changed within 5 s of a write made
 * through a second server process on the same database; another organization's streams are not;
 * a plan change announces a tool-list change; open streams are bounded per user.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STREAMS_PER_USER } from "../../src/mcp/subscriptions.ts";
import { createOrg } from "../../src/store/orgs/orgs.ts";
import { listen as openListen, waitFor } from "../helpers/listen.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

let s: TestServer;
let other: SpawnedServer;
beforeAll(async () => {
  s = await startServer();
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

const listen = (key: string, id: number, notifications?: Record<string, unknown>) => openListen(s.url, key, id, notifications);

describe("issue 23 item 4: subscriptions/listen", () => {
  it("announces a write made through a second server process within 5 s, to that organization only", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const otherOrg = await createOrg(s.db, "Elsewhere", "UTC", s.clock.now());
    // The second process's scheduler would run Elsewhere's own due agents (a change its streams are
    // rightly told of); unscheduled, only this test's write in the first organization happens.
    await s.db.execute({ sql: "UPDATE agents SET schedule = NULL WHERE org_id = ?", args: [otherOrg.id] });
    const outsider = await s.createUser("operator", undefined, "member");
    await s.db.execute({ sql: "UPDATE users SET org_id = ? WHERE id = ?", args: [otherOrg.id, outsider.id] });
    const outsiderKey = await s.createKey(outsider, ["admin"]);

    const mine = await listen(key, 1);
    const theirs = await listen(outsiderKey, 1);
    try {
      expect(mine.res.status).toBe(200);
      expect(await waitFor(() => mine.messages.some((m) => m.method === "notifications/subscriptions/acknowledged"), 5000)).toBe(true);
      expect(mine.messages[0].params.notifications.resourceSubscriptions).toEqual(["crew://briefing", "crew://agents"]);

      const started = Date.now();
      const run = await api(other.url, key)("/api/agents/briefing/runs", { method: "POST" });
      expect(run.status, run.text).toBe(200);
      const updated = () => mine.messages.some((m) => m.method === "notifications/resources/updated" && m.params.uri === "crew://briefing");
      expect(await waitFor(updated, 5000)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(theirs.messages.filter((m) => m.method === "notifications/resources/updated")).toEqual([]);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it("tells a user's stream that the tool list changed when the user's plan changes", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const stream = await listen(key, 7, { toolsListChanged: true });
    try {
      expect(await waitFor(() => stream.messages.some((m) => m.method === "notifications/subscriptions/acknowledged"), 5000)).toBe(true);
      expect(stream.messages[0].params.notifications).toEqual({ toolsListChanged: true });
      await new Promise((r) => setTimeout(r, 1200)); // a poll with the old plan first
      await s.db.execute({ sql: "UPDATE users SET plan = 'pro' WHERE id = ?", args: [user.id] });
      expect(await waitFor(() => stream.messages.some((m) => m.method === "notifications/tools/list_changed"), 5000)).toBe(true);
    } finally {
      stream.close();
    }
  });

  it(`refuses a user's stream beyond ${MAX_STREAMS_PER_USER} open at once`, async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const open = [];
    for (let i = 0; i < MAX_STREAMS_PER_USER; i++) open.push(await listen(key, i + 1));
    try {
      for (const o of open) expect(await waitFor(() => o.messages.length > 0, 5000)).toBe(true);
      const extra = await listen(key, 99);
      expect(extra.res.status).toBe(429);
    } finally {
      for (const o of open) o.close();
    }
  });
});
