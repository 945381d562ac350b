/**
 * The pure parts of the runtime (schedule slots, the dna composition) and the dna and pulse
 * built-in runners over stored data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeProfile, mergeProfile } from "../../src/agents/compose-profile.ts";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { latestSlot, nextSlot, scheduleProblem } from "../../src/agents/schedule.ts";
import { MINUTE } from "../../src/lib/clock.ts";
import { type AgentsFixture, agentsServer, complete, rows, startRun } from "../helpers/agents.ts";

const t = (iso: string) => Date.parse(iso);

describe("schedule slots", () => {
  it("finds the latest slot at or before now and the next one, in a time zone", () => {
    const tz = "Europe/Paris"; // UTC+1 in November
    expect(latestSlot("0 8,18 * * *", tz, t("2026-11-22T07:00:00Z"))).toBe(t("2026-11-22T07:00:00Z"));
    expect(latestSlot("0 8,18 * * *", tz, t("2026-11-22T06:59:59Z"))).toBe(t("2026-11-21T17:00:00Z"));
    expect(latestSlot("30 7 * * *", tz, t("2026-11-22T06:30:00.500Z"))).toBe(t("2026-11-22T06:30:00Z"));
    expect(nextSlot("30 7 * * *", tz, t("2026-11-22T06:30:00Z"))).toBe(t("2026-11-23T06:30:00Z"));
    expect(latestSlot("0 * * * *", "UTC", t("2026-11-22T09:59:59Z"))).toBe(t("2026-11-22T09:00:00Z"));
    // Across the spring-forward change (2026-03-29 in Paris), 08:00 local is 06:00 UTC.
    expect(latestSlot("0 8 * * *", tz, t("2026-03-29T12:00:00Z"))).toBe(t("2026-03-29T06:00:00Z"));
    expect(latestSlot("not a cron", "UTC", t("2026-11-22T09:00:00Z"))).toBeNull();
  });

  it("explains a bad expression", () => {
    expect(scheduleProblem("0 8 * * 1-5")).toBeNull();
    expect(scheduleProblem("61 8 * * *")).toContain("minute");
    expect(scheduleProblem("0 0 8 * * *")).toContain("5 parts");
    expect(scheduleProblem("0 0 31 2 *")).not.toBeNull(); // never fires
  });
});

describe("dna composition", () => {
  const sources = {
    contactsByRelationship: { key: 1, active: 2, contact: 3 },
    topCompanies: ["Acme", "Globex"],
    insightsByType: { insight: 4, alert: 1 },
    highImpactInsights: ["Competitor raised prices"],
  };

  it("keeps what was reported and adds derived patterns, rewritten on every run", () => {
    const reported = mergeProfile(null, {
      archetype: "Product-led SaaS",
      patterns: [{ name: "Email", insight: "Replies within an hour." }],
      pipeline: [
        { company: "Acme", stage: "proposal", value: 30000 },
        { company: "Initech", stage: "closed", value: 5000 },
      ],
    });
    const once = composeProfile(reported, sources);
    expect(once.archetype).toBe("Product-led SaaS");
    expect(once.pipeline).toEqual(reported.pipeline);
    expect(once.patterns.map((p) => p.name)).toEqual(["Email", "Network", "Feed", "Pipeline"]);
    expect(once.patterns[1]?.insight).toBe("6 contacts in the CRM, 3 of them key or active relationships; most connected: Acme, Globex.");
    expect(once.patterns[3]?.insight).toBe("1 open deal worth $30,000; furthest along: Acme (proposal).");
    expect(composeProfile(once, sources)).toEqual(once);
    // A later report of one field replaces that field only.
    const merged = mergeProfile(once, { strengths: ["Fast support"] });
    expect(merged).toMatchObject({ archetype: "Product-led SaaS", strengths: ["Fast support"], pipeline: reported.pipeline });
  });

  it("derives an archetype only while none was reported, and again as the data changes", () => {
    const empty = { contactsByRelationship: {}, topCompanies: [], insightsByType: {}, highImpactInsights: [] };
    expect(composeProfile(null, empty)).toEqual({ archetype: "unknown", strengths: [], weaknesses: [], patterns: [], pipeline: [] });
    const early = composeProfile(null, { ...empty, contactsByRelationship: { contact: 2 } });
    expect(early.archetype).toBe("Early-stage company building its network");
    const later = composeProfile(mergeProfile(early, { pipeline: [{ company: "Acme", stage: "lead", value: 1 }] }), empty);
    expect(later.archetype).toBe("B2B company with an active deal pipeline");
  });
});

describe("dna and pulse built-in runners", () => {
  let f: AgentsFixture;
  beforeAll(async () => {
    f = await agentsServer();
  });
  afterAll(() => f.close());

  it("dna writes a profile from contacts, insights and the last reported pipeline", async () => {
    await f.call("/api/mcp/contacts", { body: { name: "Grace", email: "grace@acme.example", company: "Acme", relationship: "key" } });
    await f.call("/api/mcp/feed", { body: { title: "Acme expands to Europe", impact: "high" } });
    const run = await startRun(f.call, "dna");
    await complete(f.call, "dna", run.runId, {
      status: "ok",
      summary: "Pipeline synced.",
      profile: { pipeline: [{ company: "Acme", stage: "negotiation", value: 48000 }], weaknesses: ["Long sales cycles"] },
    });
    f.s.clock.advance(MINUTE);
    const result = await runBuiltIn(f.s.deps, f.s.org, "dna");
    expect(result).toMatchObject({
      status: "ok",
      summary: "Profile refreshed (B2B company with an active deal pipeline): 1 open deal worth $48,000.",
    });
    const dna = (await f.call("/api/mcp/dna")).json;
    expect(dna).toMatchObject({
      archetype: "B2B company with an active deal pipeline",
      weaknesses: ["Long sales cycles"],
      pipeline: [{ company: "Acme", stage: "negotiation", value: 48000 }],
      generatedAt: new Date(f.s.clock.now()).toISOString(),
    });
    expect(dna.patterns.map((p: { name: string }) => p.name)).toEqual(["Network", "Feed", "Pipeline"]);
    expect(dna.patterns[1].insight).toContain("high impact: Acme expands to Europe");
    expect(await rows(f.s.db, "SELECT run_id FROM profiles ORDER BY generated_at DESC LIMIT 1")).toEqual([{ run_id: result.runId }]);
  });

  it("pulse records a run with the latest reported metrics, which the standup shows", async () => {
    const empty = await runBuiltIn(f.s.deps, f.s.org, "pulse");
    expect(empty.summary).toMatch(/^No metrics reported yet/);
    const run = await startRun(f.call, "pulse");
    await complete(f.call, "pulse", run.runId, { status: "ok", summary: "Counted.", metrics: { dau: 120, wau: 480, mrr: 9900 } });
    f.s.clock.advance(MINUTE);
    const again = await runBuiltIn(f.s.deps, f.s.org, "pulse");
    expect(again.summary).toBe("DAU 120, WAU 480, MRR $9,900 (latest reported).");
    expect(await rows(f.s.db, "SELECT metrics, has_data FROM agent_runs WHERE id = ?", [again.runId])).toEqual([
      { metrics: JSON.stringify({ dau: 120, wau: 480, mrr: 9900 }), has_data: 1 },
    ]);
    await runBuiltIn(f.s.deps, f.s.org, "standup");
    expect((await f.call("/api/mcp/standup")).json.metrics).toEqual({ dau: 120, wau: 480, mrr: 9900 });
  });
});
