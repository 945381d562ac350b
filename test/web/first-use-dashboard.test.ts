/**
 * Issue 18 items 22 and 23 (src/docs/notes/runtimes.md): on a fresh install the dashboard shows "getting
 * started" although the scheduler ran its four composers at start; and after `npm start` then
 * `crew seed --demo`, the dashboard's agent summaries are the demo's (not the start-up runs').
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tick } from "../../src/agents/scheduler.ts";
import { seedDemo } from "../../src/demo/seed.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { signedIn } from "./client.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startServer();
});
afterEach(() => s.close());

const dashboardOf = async (tab: Awaited<ReturnType<typeof signedIn>>["tab"]) => (await tab.request("/dashboard")).text;

describe("item 22: getting started appears on a fresh install", () => {
  it("shows after the start-up runs of standup, briefing, pulse and dna, and goes once the organization has content", async () => {
    const owner = await s.createUser("operator", undefined, "owner");
    const ran = await tick(s.deps, "first-start");
    expect(ran.ran.map((r) => r.agentId)).toEqual(expect.arrayContaining(["standup", "briefing", "dna"]));
    const { tab } = await signedIn(s);
    expect(await dashboardOf(tab)).toContain("Getting started");

    const key = await s.createKey(owner, ["admin"]);
    const created = await api(s.url, key)("/api/mcp/actions", { method: "POST", body: { title: "Call the bank", priority: "high" } });
    expect(created.status).toBe(200);
    expect(await dashboardOf(tab)).not.toContain("Getting started");
  });
});

describe("item 23: after start-then-seed the dashboard agrees with the other pages", () => {
  it("makes the demo's runs of the composers their latest, so the dashboard shows the demo's numbers", async () => {
    await s.createUser("operator", undefined, "owner");
    await tick(s.deps, "first-start");
    s.clock.advance(5 * 60_000);
    await seedDemo(s.db, s.org, s.clock.now());
    const { tab } = await signedIn(s);
    const page = await dashboardOf(tab);
    expect(page).not.toContain("No metrics reported yet");
    expect(page).toMatch(/MRR \$48,250/);
    expect(page).not.toContain("Getting started");
    const demoRows = await s.db.all<{ row_id: string }>("SELECT row_id FROM demo_rows WHERE table_name = 'agent_runs'");
    const latestIds = await s.db.all<{ id: string }>(
      `SELECT id FROM agent_runs r WHERE org_id = ? AND agent_id IN ('pulse', 'dna', 'briefing', 'standup')
         AND finished_at = (SELECT max(finished_at) FROM agent_runs WHERE org_id = r.org_id AND agent_id = r.agent_id)`,
      [s.org.id],
    );
    expect(latestIds).toHaveLength(4);
    const demo = new Set(demoRows.map((r) => r.row_id));
    for (const { id } of latestIds) expect(demo.has(id), id).toBe(true);
  });
});

describe("item 27: the sign-in page before setup", () => {
  it("says the one-time setup link is in the server log while no account exists, and not after", async () => {
    const before = await (await fetch(`${s.url}/sign-in`)).text();
    expect(before).toContain("No account exists yet");
    expect(before).toContain("setup link in its log");
    await s.createUser("operator", undefined, "owner");
    const after = await (await fetch(`${s.url}/sign-in`)).text();
    expect(after).not.toContain("No account exists yet");
  });
});
