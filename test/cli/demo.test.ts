/**
 * `crew seed --demo` (src/docs/notes/running.md): every read endpoint shows real-looking content — agents in all
 * four health states, standups of both modes, a profile with pipeline, suggestions, a briefing
 * per user, an action queue — and a second run replaces the demo rows without touching others.
 * The content is checked in-process against a ManualClock; one real CLI run checks the command.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tick } from "../../src/agents/scheduler.ts";
import { latestLocalTime, seedDemo } from "../../src/demo/seed.ts";
import { DAY, HOUR } from "../../src/lib/clock.ts";
import { databaseFileWithKey, runCrew, serveDatabase } from "../helpers/cli.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let admin: ReturnType<typeof api>;
let reader: ReturnType<typeof api>;

beforeAll(async () => {
  s = await startServer();
  const [operator, pro] = await Promise.all([s.userWithKey("operator", ["admin"]), s.userWithKey("pro", ["read"])]);
  admin = api(s.url, operator.key);
  reader = api(s.url, pro.key);
  await seedDemo(s.db, s.org, s.clock.now());
});
afterAll(() => s.close());

async function count(table: string): Promise<number> {
  const result = await s.db.execute(`SELECT count(*) AS n FROM ${table}`);
  return Number(result.rows[0]?.n);
}

describe("seed --demo content", () => {
  it("shows every health state, several of each, with summaries and alerts", async () => {
    const { status, json } = await reader("/api/mcp/agents");
    expect(status).toBe(200);
    expect(json).toMatchObject({ total: 17, healthy: 8, stale: 3, errors: 3, neverRan: 3 });
    const byId = Object.fromEntries(json.agents.map((a: any) => [a.id, a]));
    expect(byId.pulse).toMatchObject({ health: "green", hasData: true, hoursAgo: 0.3 });
    expect(byId.research).toMatchObject({ health: "stale", hoursAgo: 74 });
    expect(byId.inbox).toMatchObject({
      health: "error",
      summary: expect.stringContaining("Google access was revoked: reconnect on /settings/connections"),
    });
    expect(byId.calendar).toMatchObject({ health: "never_ran", generatedAt: null, hoursAgo: null, hasData: false });
    for (const agent of json.agents.filter((a: any) => a.health !== "never_ran")) {
      expect(agent.summary, agent.id).not.toMatch(/^(Has not run yet|Ran without a summary)/);
      expect(agent.generatedAt, agent.id).not.toBeNull();
    }
    expect(json.agents.some((a: any) => a.health === "green" && a.hasData === false)).toBe(true);
    expect(json.integrationAlerts.map((a: any) => [a.service, a.severity])).toEqual([
      ["google", "critical"],
      ["slack", "warning"],
    ]);
  });

  it("stores a morning and an evening standup at their local times, with pulse metrics", async () => {
    const [morning, evening, latest] = await Promise.all([
      reader("/api/mcp/standup?mode=morning"),
      reader("/api/mcp/standup?mode=evening"),
      reader("/api/mcp/standup"),
    ]);
    expect(morning.status).toBe(200);
    expect(evening.status).toBe(200);
    // The clock reads 2026-11-22 09:00 UTC (organization time zone UTC).
    expect(morning.json.generatedAt).toBe("2026-11-22T08:00:00.000Z");
    expect(evening.json.generatedAt).toBe("2026-11-21T18:00:00.000Z");
    expect(latest.json.id).toBe(morning.json.id);
    expect(morning.json.metrics).toEqual({ dau: 1284 - 9, wau: 4410 - 14, mrr: 48250 - 25 });
    expect(morning.json.agentStatuses).toHaveLength(17);
    expect(morning.json.briefing).toMatch(/^Good morning, crew\. \d+ of 17 agents are healthy/);
    expect(evening.json.briefing).toMatch(/^Evening wrap-up\./);
    const priorities = morning.json.interventions.map((i: any) => i.priority);
    expect(priorities[0]).toBe("critical");
    expect([...priorities].sort((a: string, b: string) => rank(a) - rank(b))).toEqual(priorities);
    expect(morning.json.interventions.map((i: any) => i.agent)).toEqual(expect.arrayContaining(["inbox", "revenue"]));
    // One cause, one line: the revoked Google access is the alert alone (no action, no failed-run line).
    const google = morning.json.interventions.filter((i: any) => /Google|Gmail|reconnect/i.test(i.title));
    expect(google.map((i: any) => i.title)).toEqual(["Google access was revoked: reconnect on /settings/connections (sam@acme.example)."]);
  });

  it("has a company profile with a pipeline across every stage", async () => {
    const { json } = await reader("/api/mcp/dna");
    expect(json.archetype).toBe("Product-led B2B SaaS, seed stage");
    expect(json.strengths.length).toBeGreaterThanOrEqual(3);
    expect(json.weaknesses.length).toBeGreaterThanOrEqual(3);
    expect(json.patterns[0]).toEqual({ name: expect.any(String), insight: expect.any(String) });
    expect(new Set(json.pipeline.map((d: any) => d.stage))).toEqual(new Set(["lead", "qualified", "proposal", "negotiation", "closed"]));
    expect(json.generatedAt).toBe(new Date(s.clock.now() - 40 * 60_000).toISOString());
  });

  it("has suggestions from several agents in priority order", async () => {
    const [all, product] = await Promise.all([reader("/api/mcp/suggestions"), reader("/api/mcp/suggestions?agent=product")]);
    expect(new Set(all.json.suggestions.map((x: any) => x.agent)).size).toBeGreaterThanOrEqual(6);
    expect(all.json.suggestions[0]).toMatchObject({ agent: "revenue", priority: "critical" });
    const ranks = all.json.suggestions.map((x: any) => rank(x.priority));
    expect([...ranks].sort()).toEqual(ranks);
    expect(product.json.suggestions.map((x: any) => x.priority)).toEqual(["high", "medium"]);
  });

  it("stores a briefing for each user, critical actions first", async () => {
    const { json } = await reader("/api/mcp/briefing");
    expect(json.id).toMatch(/^brf_/);
    expect(json.generatedAt).toBe(new Date(s.clock.now()).toISOString());
    expect(json.pendingActions.slice(0, 2).map((a: any) => a.priority)).toEqual(["critical", "critical"]);
    expect(json.recommendations[0]).toBe("Approve the Northwind renewal discount before Friday");
    expect(json.briefing).toContain("(high impact)");
    expect(await count("briefings")).toBe(2);
  });

  it("has an action queue with every status, lanes, agent sources and approvals", async () => {
    const { json } = await admin("/api/mcp/actions?limit=100");
    const actions = json.actions;
    expect(new Set(actions.map((a: any) => a.status))).toEqual(new Set(["pending", "approved", "in_progress", "done", "dismissed"]));
    expect(new Set(actions.map((a: any) => a.lane))).toEqual(new Set(["today", "this_week", "later"]));
    expect(new Set(actions.map((a: any) => a.priority))).toEqual(new Set(["critical", "high", "medium", "low"]));
    expect(actions.map((a: any) => a.source)).toEqual(expect.arrayContaining(["api", "mcp", "revenue", "sales", "inbox"]));
    const approval = actions.find((a: any) => a.type === "approval" && a.status === "pending");
    expect(approval).toMatchObject({ source: "revenue", dealId: "deal_northwind_renewal", contactId: expect.stringMatching(/^con_/) });
    const critical = await admin("/api/mcp/actions?status=pending&lane=today");
    expect(critical.json.actions[0].priority).toBe("critical");
  });

  it("stores contacts, handoffs and insights", async () => {
    expect(await count("contacts")).toBe(6);
    const handoffs = await s.db.execute("SELECT status, count(*) AS n FROM handoffs GROUP BY status ORDER BY status");
    expect(handoffs.rows.map((r) => [r.status, r.n])).toEqual([
      ["done", 2],
      ["failed", 1],
      ["queued", 3],
    ]);
    const high = await s.db.execute("SELECT count(*) AS n FROM insights WHERE impact = 'high'");
    expect(Number(high.rows[0]?.n)).toBe(3);
  });
});

describe("seed --demo run twice", () => {
  it("replaces the demo rows with fresh ones and leaves other rows alone", async () => {
    const t = await startServer();
    try {
      const [operator, pro] = await Promise.all([t.userWithKey("operator", ["admin"]), t.userWithKey("pro", ["read"])]);
      const own = api(t.url, operator.key);
      const read = api(t.url, pro.key);
      const tables = [
        "agent_runs",
        "actions",
        "contacts",
        "handoffs",
        "insights",
        "standups",
        "suggestions",
        "profiles",
        "integration_alerts",
      ];
      const counts = () =>
        Promise.all(tables.map(async (table) => Number((await t.db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n)));
      const first = await seedDemo(t.db, t.org, t.clock.now());
      expect(first.replaced).toBe(0);
      const before = await counts();
      const mine = await own("/api/mcp/actions", { body: { title: "My own action", priority: "low" } });
      const firstBriefing = (await read("/api/mcp/briefing")).json.id;

      t.clock.advance(2 * DAY + 3 * HOUR);
      const second = await seedDemo(t.db, t.org, t.clock.now());
      expect(second.replaced).toBe(before.reduce((a, b) => a + b, 0) + 2); // + the two briefings
      expect(second.health).toEqual({ green: 8, stale: 3, error: 3, never_ran: 3 });
      expect(await counts()).toEqual(before.map((n, i) => (tables[i] === "actions" ? n + 1 : n)));
      expect((await own("/api/mcp/actions?source=api&limit=100")).json.actions.map((a: any) => a.id)).toContain(mine.json.actionId);
      expect((await read("/api/mcp/agents")).json).toMatchObject({ healthy: 8, stale: 3, errors: 3, neverRan: 3 });
      expect((await read("/api/mcp/briefing")).json.id).not.toBe(firstBriefing);
      expect(Number((await t.db.execute("SELECT count(*) AS n FROM briefings")).rows[0]?.n)).toBe(2);
      expect((await read("/api/mcp/standup?mode=morning")).json.generatedAt).toBe("2026-11-24T08:00:00.000Z");
    } finally {
      await t.close();
    }
  });
});

describe("latestLocalTime", () => {
  it("finds the latest local hh:mm in the organization's time zone", () => {
    const now = Date.UTC(2026, 10, 22, 9, 0);
    expect(new Date(latestLocalTime(now, "UTC", 8, 0)).toISOString()).toBe("2026-11-22T08:00:00.000Z");
    expect(new Date(latestLocalTime(now, "Europe/Paris", 8, 0)).toISOString()).toBe("2026-11-22T07:00:00.000Z");
    expect(new Date(latestLocalTime(now, "America/New_York", 18, 0)).toISOString()).toBe("2026-11-21T23:00:00.000Z");
    expect(new Date(latestLocalTime(now, "Asia/Kolkata", 7, 30)).toISOString()).toBe("2026-11-22T02:00:00.000Z");
  });
});

describe("crew seed --demo (real process)", () => {
  it("loads the demo into a database, and a server on it shows it", async () => {
    const { dbUrl, env, key, cleanup } = await databaseFileWithKey("demo");
    try {
      const result = await runCrew(["seed", "--demo"], env);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
      expect(result.stdout).toContain("Loaded demo content into Default organization:");
      expect(result.stdout).toContain("agents: 8 green, 3 stale, 3 error, 3 never ran");
      expect(result.stdout).toContain("1 briefing (one per user of the organization");

      const server = await serveDatabase(dbUrl);
      try {
        const call = api(server.url, key);
        const [agents, morning, evening, dna, suggestions, briefing, actions] = await Promise.all([
          call("/api/mcp/agents"),
          call("/api/mcp/standup?mode=morning"),
          call("/api/mcp/standup?mode=evening"),
          call("/api/mcp/dna"),
          call("/api/mcp/suggestions"),
          call("/api/mcp/briefing"),
          call("/api/mcp/actions"),
        ]);
        expect(new Set(agents.json.agents.map((a: any) => a.health))).toEqual(new Set(["green", "stale", "error", "never_ran"]));
        expect([morning.status, evening.status]).toEqual([200, 200]);
        expect(dna.json.pipeline.length).toBeGreaterThan(0);
        expect(suggestions.json.suggestions.length).toBeGreaterThan(0);
        expect(briefing.json.pendingActions[0].priority).toBe("critical");
        expect(actions.json.actions.length).toBe(11);
      } finally {
        await server.close();
      }
    } finally {
      cleanup();
    }
  });
});

function rank(priority: string): number {
  return ["critical", "high", "medium", "low"].indexOf(priority);
}

describe("issue 11 item 11: seeding after a server already ran (the README order)", () => {
  it("makes the demo's standups, profile and briefing the latest of their kind", async () => {
    const t = await startServer();
    try {
      const { key } = await t.userWithKey("operator", ["admin"]);
      const call = api(t.url, key);
      // The first start: the scheduler runs its due agents on the empty database, storing an
      // empty profile, standup and briefing stamped now — later than the demo's designed times.
      const first = await tick(t.deps, "first-start");
      expect(first.ran.map((r) => r.agentId)).toEqual(expect.arrayContaining(["standup", "dna", "briefing"]));
      expect((await call("/api/mcp/dna")).json.archetype).toBe("unknown");
      t.clock.advance(5 * 60_000);

      await seedDemo(t.db, t.org, t.clock.now());

      const dna = (await call("/api/mcp/dna")).json;
      expect(dna.archetype).toBe("Product-led B2B SaaS, seed stage");
      expect(dna.pipeline).not.toBeNull();
      const standup = (await call("/api/mcp/standup")).json;
      expect(JSON.stringify(standup)).not.toContain("0 of 17 agents are healthy");
      expect(JSON.stringify(standup)).toMatch(/[1-9]\d* of 17 agents are healthy/);
      const briefing = (await call("/api/mcp/briefing")).json;
      expect(JSON.stringify(briefing)).not.toMatch(/0 open deals worth \$0/);
    } finally {
      await t.close();
    }
  });
});
