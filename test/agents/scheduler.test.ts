/**
 * The scheduler (src/docs/notes/agents-runtime.md) driven pass by pass with a ManualClock: due times in the organization's
 * time zone, a missed stretch runs once (only a slot missed within the last hour), one leader across two app instances on one database,
 * runs left open over an hour closed as errors, health from real runs.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createScheduler, LEASE_TTL_MS } from "../../src/agents/scheduler.ts";
import { boot } from "../../src/boot-app.ts";
import { DAY, HOUR, ManualClock, MINUTE } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { openStore } from "../../src/store/db.ts";
import { type AgentsFixture, agentsServer, complete, rows, runsOf, startRun } from "../helpers/agents.ts";
import { TEST_SECRET, testDatabaseUrl } from "../helpers/database.ts";
import { fastUser } from "../helpers/rest.ts";
import { tempDir } from "../helpers/server.ts";

let f: AgentsFixture;
afterEach(() => f.close());

const at = (isoTime: string) => f.s.clock.set(Date.parse(isoTime));
const ranAt = async (isoTime: string) => {
  at(isoTime);
  const report = await f.scheduler.tick();
  expect(report.leader).toBe(true);
  return report.ran.map((r) => `${r.agentId}:${r.status}`).sort();
};

describe("due times in the organization's time zone", () => {
  beforeEach(async () => {
    f = await agentsServer("America/New_York");
  });

  it("runs standup at 08:00 and 18:00, briefing at 07:30, pulse and dna hourly, New York time", async () => {
    await fastUser(f.s); // the briefing agent writes one briefing per user
    // 07:00 EST. Nothing ever ran: the latest slot of each schedule is due once.
    expect(await ranAt("2026-11-22T12:00:00Z")).toEqual(["briefing:ok", "dna:ok", "pulse:ok", "standup:ok"]);
    const evening = (await f.call("/api/mcp/standup")).json;
    expect(evening).toMatchObject({ mode: "evening", generatedAt: "2026-11-22T12:00:00.000Z" });

    expect(await ranAt("2026-11-22T12:29:59Z")).toEqual([]);
    expect(await ranAt("2026-11-22T12:30:00Z")).toEqual(["briefing:ok"]); // 07:30 EST
    expect(await ranAt("2026-11-22T12:45:00Z")).toEqual([]);
    expect(await ranAt("2026-11-22T13:00:10Z")).toEqual(["dna:ok", "pulse:ok", "standup:ok"]); // 08:00 EST
    const morning = (await f.call("/api/mcp/standup?mode=morning")).json;
    expect(morning).toMatchObject({ mode: "morning", generatedAt: "2026-11-22T13:00:10.000Z" });
    expect(await ranAt("2026-11-22T13:00:25Z")).toEqual([]);
    expect(await ranAt("2026-11-22T23:00:00Z")).toEqual(["dna:ok", "pulse:ok", "standup:ok"]); // 18:00 EST
    expect((await f.call("/api/mcp/standup")).json.mode).toBe("evening");

    const briefings = await rows(f.s.db, "SELECT generated_at FROM briefings WHERE user_id = ? ORDER BY generated_at", [f.userId]);
    // Both ran (12:00 catch-up, 12:30 = 07:30 EST); a briefing replaces the same day's earlier one (src/docs/notes/operating.md).
    expect(briefings.map((b) => new Date(b.generated_at as number).toISOString())).toEqual(["2026-11-22T12:30:00.000Z"]);
    expect((await runsOf(f.s.db, "briefing")).length).toBe(2);
    // Each built-in run is a real run: health and history show it.
    const agents = (await f.call("/api/mcp/agents")).json.agents;
    for (const id of ["standup", "briefing", "pulse", "dna"]) expect(agents.find((a: any) => a.id === id).health, id).toBe("green");
    expect((await f.call("/api/agents/briefing/runs")).json.runs[0]).toMatchObject({
      status: "ok",
      summary: "Composed the daily briefing for 2 people.",
    });
  });

  it("runs a missed stretch of slots once, only for a slot missed within the last hour, and follows an edited schedule", async () => {
    await ranAt("2026-11-22T12:00:00Z");
    // Three days down, back at 15:10 EST: pulse and dna missed their 15:00 slot 10 minutes ago and
    // run once (not once per missed hour); standup (08:00) and briefing (07:30) missed theirs hours
    // ago and are not caught up.
    expect(await ranAt("2026-11-25T20:10:00Z")).toEqual(["dna:ok", "pulse:ok"]);
    expect(await ranAt("2026-11-25T20:20:00Z")).toEqual([]);
    expect(await runsOf(f.s.db, "standup")).toHaveLength(1);
    expect(await runsOf(f.s.db, "briefing")).toHaveLength(1);

    expect((await f.call("/api/agents/pulse", { method: "PATCH", body: { schedule: "*/15 * * * *" } })).status).toBe(200);
    expect((await f.call("/api/agents/dna", { method: "PATCH", body: { schedule: null } })).status).toBe(200);
    expect(await ranAt("2026-11-25T20:30:00Z")).toEqual(["pulse:ok"]);
    expect(await ranAt("2026-11-25T21:00:00Z")).toEqual(["pulse:ok"]);
    // The next standup slot (18:00 EST) runs as usual; so does a slot missed by 40 minutes.
    expect(await ranAt("2026-11-25T23:40:00Z")).toEqual(["pulse:ok", "standup:ok"]);
    expect(await runsOf(f.s.db, "standup")).toHaveLength(2);
    expect((await f.call("/api/mcp/standup")).json).toMatchObject({ mode: "evening", generatedAt: "2026-11-25T23:40:00.000Z" });
  });

  it("lets a run made for another reason cover the slot", async () => {
    await ranAt("2026-11-22T12:00:00Z");
    at("2026-11-22T13:00:05Z");
    const run = await startRun(f.call, "pulse"); // an external runner reporting metrics at 08:00:05
    await complete(f.call, "pulse", run.runId, { status: "ok", summary: "Metrics.", metrics: { dau: 5, wau: 9, mrr: 100 } });
    // pulse's 08:00 slot is covered; briefing's 07:30 slot, missed since 07:00, runs now.
    expect(await ranAt("2026-11-22T13:00:15Z")).toEqual(["briefing:ok", "dna:ok", "standup:ok"]);
    expect((await f.call("/api/mcp/standup")).json.metrics).toEqual({ dau: 5, wau: 9, mrr: 100 });
  });
});

describe("one leader across processes", () => {
  beforeEach(async () => {
    f = await agentsServer();
  });

  it("lets only one of two app instances on one database run a due job", async () => {
    const db2 = await openStore({ url: f.s.config.databaseUrl });
    try {
      const other = createScheduler({ db: db2, clock: f.s.clock, log: silentLogger }, { holder: "other-process" });
      const [a, b] = await Promise.all([f.scheduler.tick(), other.tick()]);
      expect([a.leader, b.leader].sort()).toEqual([false, true]);
      const leader = a.leader ? a : b;
      expect(leader.ran.map((r) => r.agentId).sort()).toEqual(["briefing", "dna", "pulse", "standup"]);
      expect((a.leader ? b : a).ran).toEqual([]);
      for (const id of ["standup", "briefing", "pulse", "dna"]) expect(await runsOf(f.s.db, id), id).toHaveLength(1);

      // The follower stays a follower while the leader renews; the lease passes on when the leader stops or dies.
      const [leading, following] = a.leader ? [f.scheduler, other] : [other, f.scheduler];
      for (let i = 0; i < 3; i++) {
        f.s.clock.advance(LEASE_TTL_MS / 2);
        expect((await following.tick()).leader).toBe(false);
        expect((await leading.tick()).leader).toBe(true);
      }
      f.s.clock.advance(LEASE_TTL_MS + 1);
      const takeover = await following.tick();
      expect(takeover.leader).toBe(true);
      expect((await leading.tick()).leader).toBe(false);
      await (following === other ? other : f.scheduler).stop();
      expect((await leading.tick()).leader).toBe(true);
      expect(await rows(f.s.db, "SELECT holder FROM leases")).toEqual([{ holder: leading.holder }]);
    } finally {
      db2.close();
    }
  });
});

describe("open runs and health", () => {
  beforeEach(async () => {
    f = await agentsServer();
  });

  it("closes a run left open over an hour as an error and requeues its handoffs", async () => {
    const hof = (await f.call("/api/mcp/handoffs", { body: { from: "manual", to: "research", title: "Dig" } })).json.handoffId;
    const run = await startRun(f.call, "research");
    f.s.clock.advance(59 * MINUTE);
    expect((await f.scheduler.tick()).closed).toBe(0);
    f.s.clock.advance(2 * MINUTE);
    expect((await f.scheduler.tick()).closed).toBe(1);
    expect(await rows(f.s.db, "SELECT status, error, finished_at FROM agent_runs WHERE id = ?", [run.runId])).toEqual([
      { status: "error", error: "The run was not completed within 1 hour; closed by the scheduler.", finished_at: f.s.clock.now() },
    ]);
    expect(await rows(f.s.db, "SELECT status, run_id FROM handoffs WHERE id = ?", [hof])).toEqual([{ status: "queued", run_id: null }]);
    const late = await complete(f.call, "research", run.runId, { status: "ok", summary: "Too late." });
    expect(late.status).toBe(409);
    const research = (await f.call("/api/mcp/agents")).json.agents.find((a: any) => a.id === "research");
    expect(research).toMatchObject({ health: "error", hoursAgo: 0 });
  });

  it("derives health from real runs: never_ran, green, stale, error, green", async () => {
    const health = async () => {
      const json = (await f.call("/api/mcp/agents")).json;
      expect(json.healthy + json.stale + json.errors + json.neverRan).toBe(17);
      return json.agents.find((a: any) => a.id === "revenue");
    };
    expect(await health()).toMatchObject({ health: "never_ran", generatedAt: null, hoursAgo: null });
    const first = await startRun(f.call, "revenue");
    expect((await health()).health).toBe("never_ran"); // a running run is not a result yet
    await complete(f.call, "revenue", first.runId, { status: "ok", summary: "MRR up." });
    const okAt = new Date(f.s.clock.now()).toISOString();
    expect(await health()).toMatchObject({ health: "green", generatedAt: okAt, hoursAgo: 0, summary: "MRR up." });
    f.s.clock.advance(DAY + HOUR);
    expect(await health()).toMatchObject({ health: "stale", hoursAgo: 25 });
    const second = await startRun(f.call, "revenue");
    await complete(f.call, "revenue", second.runId, { status: "error", summary: "Stripe is down.", error: "503" });
    expect(await health()).toMatchObject({ health: "error", generatedAt: okAt, summary: "Stripe is down." });
    const third = await startRun(f.call, "revenue");
    await complete(f.call, "revenue", third.runId, { status: "ok", summary: "Recovered." });
    expect(await health()).toMatchObject({ health: "green", summary: "Recovered." });
  });
});

describe("as a background task of the server", () => {
  it("boot() starts the scheduler (first pass at start) and stops it on close, handing the lease back", async () => {
    const temp = tempDir("crew-agents-boot-");
    try {
      const dbUrl = await testDatabaseUrl(temp.dir);
      const clock = new ManualClock(Date.parse("2026-11-22T09:00:00Z"));
      const booted = await boot({ DATABASE_URL: dbUrl, LOG_LEVEL: "silent", CREW_SECRET: TEST_SECRET }, { clock, announceSetup: false });
      await booted.close(); // waits for the pass in progress
      const db = await openStore({ url: dbUrl });
      try {
        expect((await rows(db, "SELECT agent_id FROM agent_runs ORDER BY agent_id")).map((r) => r.agent_id)).toEqual([
          "briefing",
          "dna",
          "pulse",
          "standup",
        ]);
        expect(await rows(db, "SELECT count(*) AS n FROM leases")).toEqual([{ n: 0 }]);
      } finally {
        db.close();
      }
    } finally {
      temp.cleanup();
    }
  });
});
