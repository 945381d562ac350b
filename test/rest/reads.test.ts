/**
 * The read endpoints over real HTTP with agent output seeded through the store's statement
 * builders: health derivation (src/docs/notes/rest-api.md), standup modes, briefing on first request, suggestions
 * order and filter, the company profile before and after the dna agent's first run.
 */
import { describe, expect, it } from "vitest";
import { DAY, HOUR, iso, MINUTE } from "../../src/lib/clock.ts";
import {
  type Call,
  client,
  expectError,
  expectRateHeaders,
  hoursAgo,
  seedActions,
  seedAlert,
  seedProfile,
  seedRun,
  seedStandup,
  seedSuggestion,
  serverWithClient,
} from "../helpers/rest.ts";
import type { TestServer } from "../helpers/server.ts";

// Each describe block has its own server and database, so no test depends on another's data.
let s: TestServer;
let call: Call;
let userId: string;
const freshServer = () => serverWithClient("pro", ["read"], (f) => ({ s, call, userId } = f));

describe("GET /api/mcp/agents", () => {
  freshServer();

  it("derives health from runs: green, stale, error, never_ran; counts add up; hoursAgo one decimal", async () => {
    const res = await call("/api/mcp/agents");
    expect(res.status).toBe(200);
    expect(res.headers.get("api-version")).toBe("1.0.0");
    expectRateHeaders(res, 600);
    expect(res.json).toMatchObject({ total: 17, healthy: 0, stale: 0, errors: 0, neverRan: 17, integrationAlerts: [] });
    expect(res.json.agents.map((a: any) => a.id)).toEqual([
      "standup",
      "briefing",
      "inbox",
      "calendar",
      "slack",
      "compliance",
      "pulse",
      "dna",
      "corpdev",
      "research",
      "growth",
      "content",
      "bdr",
      "revenue",
      "sales",
      "finance",
      "product",
    ]);
    expect(res.json.agents[4]).toEqual({
      id: "slack",
      name: "Slack Digest",
      category: "ops",
      health: "never_ran",
      generatedAt: null,
      hoursAgo: null,
      summary: "Needs a model: connect one in Settings → Model.",
      hasData: false,
      paused: false,
    });

    const now = s.clock.now();
    await seedRun(s, "standup", "ok", now - 94 * MINUTE, { summary: "Morning standup ready" }); // 1.5667 h → 1.6
    await seedRun(s, "briefing", "ok", now - 25 * HOUR, { summary: "Briefed 3 users" });
    await seedRun(s, "inbox", "ok", now - 3 * HOUR, { summary: "12 emails triaged" });
    await seedRun(s, "inbox", "error", now - HOUR, { error: "IMAP login failed" });
    await seedRun(s, "calendar", "error", now - 2 * HOUR, { summary: "Calendar unreachable" });
    await seedRun(s, "pulse", "error", now - 5 * HOUR, { error: "timeout" });
    await seedRun(s, "pulse", "ok", now - 6 * MINUTE, { summary: "DAU up", hasData: false }); // 0.1 h
    await seedRun(s, "dna", "ok", now - DAY, { summary: "Profile refreshed" }); // exactly 24 h: not yet stale
    await seedRun(s, "compliance", "ok", now - DAY - 1, { summary: "All clear" }); // just over 24 h: stale
    await seedRun(s, "research", "running", null); // a run in progress is no finished run

    const seeded = await call("/api/mcp/agents");
    expect(seeded.status).toBe(200);
    const byId = Object.fromEntries(seeded.json.agents.map((a: any) => [a.id, a]));
    expect(byId.standup).toEqual({
      id: "standup",
      name: "Standup",
      category: "ops",
      health: "green",
      generatedAt: iso(now - 94 * MINUTE),
      hoursAgo: 1.6,
      summary: "Morning standup ready",
      hasData: true,
      paused: false,
    });
    expect(byId.briefing).toMatchObject({ health: "stale", hoursAgo: 25, generatedAt: iso(now - 25 * HOUR) });
    expect(byId.inbox).toMatchObject({ health: "error", hoursAgo: 1, generatedAt: iso(now - 3 * HOUR) });
    expect(byId.inbox.summary).toContain("IMAP login failed");
    expect(byId.calendar).toMatchObject({
      health: "error",
      generatedAt: null,
      hoursAgo: 2,
      summary: "Calendar unreachable",
      hasData: false,
    });
    expect(byId.pulse).toMatchObject({ health: "green", hoursAgo: 0.1, summary: "DAU up", hasData: false });
    expect(byId.dna).toMatchObject({ health: "green", hoursAgo: 24 });
    expect(byId.compliance).toMatchObject({ health: "stale", hoursAgo: 24 });
    expect(byId.research).toMatchObject({ health: "never_ran", hoursAgo: null, generatedAt: null });
    expect(seeded.json).toMatchObject({ total: 17, healthy: 3, stale: 2, errors: 2, neverRan: 10 });
    for (const a of seeded.json.agents) {
      if (a.hoursAgo !== null) expect(Math.round(a.hoursAgo * 10) / 10).toBe(a.hoursAgo);
    }

    // Time passes (ManualClock): the standup's last success ages past 24 hours.
    s.clock.advance(23 * HOUR);
    const later = await call("/api/mcp/agents");
    const laterById = Object.fromEntries(later.json.agents.map((a: any) => [a.id, a]));
    expect(laterById.standup).toMatchObject({ health: "stale", hoursAgo: 24.6 });
    expect(laterById.pulse).toMatchObject({ health: "green", hoursAgo: 23.1 });
    expect(laterById.dna.health).toBe("stale");
    const { healthy, stale, errors, neverRan, total } = later.json;
    expect({ healthy, stale, errors, neverRan }).toEqual({ healthy: 1, stale: 4, errors: 2, neverRan: 10 });
    expect(healthy + stale + errors + neverRan).toBe(total);
    s.clock.advance(-23 * HOUR);
  });

  it("lists open integration alerts of the organization and this user, critical first then newest", async () => {
    const now = s.clock.now();
    await seedAlert(s, "google", "warning", now - 3 * HOUR);
    await seedAlert(s, "slack", "critical", now - 2 * HOUR);
    await seedAlert(s, "calendar", "critical", now - HOUR, userId);
    await seedAlert(s, "google", "warning", now - 10 * MINUTE);
    const other = await client(s, "pro", ["agents"]);
    await seedAlert(s, "calendar", "critical", now, other.user.id); // another user's: not shown to this one
    const res = await call("/api/mcp/agents");
    expect(res.json.integrationAlerts).toEqual([
      { service: "calendar", severity: "critical", message: "calendar needs attention", flaggedAt: iso(now - HOUR) },
      { service: "slack", severity: "critical", message: "slack needs attention", flaggedAt: iso(now - 2 * HOUR) },
      { service: "google", severity: "warning", message: "google needs attention", flaggedAt: iso(now - 10 * MINUTE) },
      { service: "google", severity: "warning", message: "google needs attention", flaggedAt: iso(now - 3 * HOUR) },
    ]);
    const theirs = await other.call("/api/mcp/agents");
    expect(theirs.json.integrationAlerts.map((a: any) => a.flaggedAt)[0]).toBe(iso(now));
  });
});

describe("GET /api/mcp/standup", () => {
  freshServer();

  it("is 404 with a clear message until a snapshot of that mode exists; latest and the modes pick the right one", async () => {
    for (const q of ["", "?mode=latest", "?mode=morning", "?mode=evening"]) {
      const body = expectError(await call(`/api/mcp/standup${q}`), s.url, 404, "not_found");
      expect(body.message).toMatch(/^No (morning |evening )?standup has been generated yet/);
    }
    const evening = await seedStandup(s, "evening", hoursAgo(s, 15), "Yesterday evening");
    const morningMissing = expectError(await call("/api/mcp/standup?mode=morning"), s.url, 404, "not_found");
    expect(morningMissing.message).toContain("morning standup");

    const latestIsEvening = await call("/api/mcp/standup");
    expect(latestIsEvening.status).toBe(200);
    expect(latestIsEvening.json).toMatchObject({ id: evening, mode: "evening", briefing: "Yesterday evening" });

    await seedStandup(s, "morning", hoursAgo(s, 40), "Older morning");
    const morning = await seedStandup(s, "morning", hoursAgo(s, 1), "This morning");
    const latest = await call("/api/mcp/standup?mode=latest");
    expect(latest.json).toEqual({
      id: morning,
      mode: "morning",
      generatedAt: iso(hoursAgo(s, 1)),
      briefing: "This morning",
      agentStatuses: [{ name: "Sales", status: "green", headline: "3 deals moved" }],
      metrics: { dau: 120, wau: 640, mrr: 15400.5 },
      interventions: [
        { title: "Approve the Acme contract", priority: "critical", agent: "sales" },
        { title: "Slack token expired", priority: "high", agent: "slack" },
      ],
    });
    expect((await call("/api/mcp/standup?mode=morning")).json.id).toBe(morning);
    expect((await call("/api/mcp/standup?mode=evening")).json.id).toBe(evening);
  });

  it("refuses a bad mode with 400 naming mode", async () => {
    for (const q of ["?mode=noon", "?mode=", "?mode=MORNING", "?mode=morning&mode=evening", "?modes=latest"]) {
      const body = expectError(await call(`/api/mcp/standup${q}`), s.url, 400, "invalid_request");
      expect(body.issues.map((i: any) => i.path)).toEqual([q.startsWith("?modes") ? "modes" : "mode"]);
    }
  });
});

describe("GET /api/mcp/suggestions", () => {
  freshServer();

  it("sorts by priority then newest, and filters by agent", async () => {
    const now = s.clock.now();
    await seedSuggestion(s, "sales", "Call back Initech", "medium", now - 5 * HOUR);
    await seedSuggestion(s, "product", "Fix onboarding drop-off", "high", now - 4 * HOUR);
    await seedSuggestion(s, "sales", "Renew Acme before Friday", "critical", now - 3 * HOUR);
    await seedSuggestion(s, "growth", "Post the case study", "low", now - 2 * HOUR);
    await seedSuggestion(s, "sales", "Send Globex the proposal", "high", now - HOUR);
    const all = await call("/api/mcp/suggestions");
    expect(all.status).toBe(200);
    expect(all.json.suggestions.map((x: any) => [x.priority, x.title])).toEqual([
      ["critical", "Renew Acme before Friday"],
      ["high", "Send Globex the proposal"],
      ["high", "Fix onboarding drop-off"],
      ["medium", "Call back Initech"],
      ["low", "Post the case study"],
    ]);
    expect(all.json.suggestions[0]).toEqual({
      id: expect.stringMatching(/^sug_/),
      agent: "sales",
      title: "Renew Acme before Friday",
      detail: "Why: Renew Acme before Friday",
      priority: "critical",
      status: "open",
      alsoRaisedBy: [],
      evidence: [],
      actionId: null,
      reason: null,
      runId: null,
      createdAt: iso(now - 3 * HOUR),
      updatedAt: iso(now - 3 * HOUR),
      provenance: "internal",
      held: false,
      heldReason: null,
    });
    const sales = await call("/api/mcp/suggestions?agent=sales");
    expect(sales.json.suggestions.map((x: any) => x.title)).toEqual([
      "Renew Acme before Friday",
      "Send Globex the proposal",
      "Call back Initech",
    ]);
    expect((await call("/api/mcp/suggestions?agent=corpdev")).json).toEqual({ suggestions: [] });
  });

  it("accepts the nine filter values and every agent that writes suggestions, nothing else", async () => {
    for (const agent of [
      "product",
      "growth",
      "revenue",
      "content",
      "corpdev",
      "sales",
      "bdr",
      "compliance",
      "pulse",
      "inbox",
      "finance",
      "calendar",
      "slack",
      "research",
    ]) {
      expect((await call(`/api/mcp/suggestions?agent=${agent}`)).status).toBe(200);
    }
    // dna and briefing write no suggestions (src/domain.ts SUGGESTION_AGENTS).
    for (const agent of ["manual", "Sales", "nobody", "", "dna", "briefing"]) {
      const body = expectError(await call(`/api/mcp/suggestions?agent=${agent}`), s.url, 400, "invalid_request");
      expect(body.issues[0].path).toBe("agent");
    }
  });
});

describe("GET /api/mcp/dna", () => {
  freshServer();

  it("is an empty profile before the dna agent's first run, then the latest profile", async () => {
    const empty = await call("/api/mcp/dna");
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ archetype: "unknown", strengths: [], weaknesses: [], patterns: [], pipeline: [], generatedAt: null });

    await seedProfile(s, hoursAgo(s, 30), { archetype: "old", strengths: [], weaknesses: [], patterns: [], pipeline: [] });
    const profile = {
      archetype: "sales-led B2B",
      strengths: ["fast follow-up"],
      weaknesses: ["thin pipeline"],
      patterns: [{ name: "Friday deals", insight: "Most deals close on Fridays" }],
      pipeline: [{ company: "Acme", stage: "proposal", value: 42000 }],
    };
    await seedProfile(s, hoursAgo(s, 2), profile);
    const res = await call("/api/mcp/dna");
    expect(res.json).toEqual({ ...profile, generatedAt: iso(hoursAgo(s, 2)) });
  });
});

describe("GET /api/mcp/briefing", () => {
  freshServer();

  it("composes and stores a briefing at the first request: critical first, recommendations by priority", async () => {
    const now = s.clock.now();
    await seedSuggestion(s, "sales", "Call back Initech", "medium", now - 3 * HOUR);
    await seedSuggestion(s, "sales", "Renew Acme before Friday", "critical", now - 2 * HOUR);
    await seedSuggestion(s, "product", "Fix onboarding drop-off", "high", now - HOUR);
    const b = await client(s, "pro", ["briefing"]);
    await seedActions(s, b.user.id, [
      { title: "Tidy the CRM", priority: "low" },
      { title: "Sign the Acme renewal", priority: "critical" },
      { title: "Prepare board deck", priority: "high" },
      { title: "Already done", priority: "critical", status: "done" },
    ]);
    const before = await s.db.execute({ sql: "SELECT count(*) AS n FROM briefings WHERE user_id = ?", args: [b.user.id] });
    expect(before.rows[0]?.n).toBe(0);

    const first = await b.call("/api/mcp/briefing");
    expect(first.status).toBe(200);
    expect(first.json.id).toMatch(/^brf_[0-9A-Z]{26}$/);
    expect(first.json.generatedAt).toBe(iso(s.clock.now()));
    const titles = first.json.pendingActions.map((a: any) => a.title);
    expect(first.json.pendingActions[0]).toEqual({
      id: expect.stringMatching(/^act_/),
      title: "Sign the Acme renewal",
      priority: "critical",
      source: "api",
    });
    expect(titles).not.toContain("Already done");
    expect(titles.indexOf("Prepare board deck")).toBeLessThan(titles.indexOf("Tidy the CRM"));
    expect(first.json.briefing).toMatch(/Critical: Sign the Acme renewal/);
    expect(first.json.briefing.indexOf("Sign the Acme renewal")).toBeLessThan(first.json.briefing.indexOf("awaiting"));
    // Recommendations are the open suggestions' titles, highest priority first.
    expect(first.json.recommendations).toEqual(["Renew Acme before Friday", "Fix onboarding drop-off", "Call back Initech"]);

    const stored = await s.db.execute({ sql: "SELECT id FROM briefings WHERE user_id = ?", args: [b.user.id] });
    expect(stored.rows.map((r) => r.id)).toEqual([first.json.id]);
    // The second request reads the stored briefing instead of composing another.
    s.clock.advance(MINUTE);
    const second = await b.call("/api/mcp/briefing");
    expect(second.json).toEqual(first.json);
    s.clock.advance(-MINUTE);
  });
});
