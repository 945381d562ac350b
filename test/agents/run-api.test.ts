/**
 * The agent-run API (src/docs/notes/agents-runtime.md): start (claims queued handoffs critical first, hands over the
 * insights since the previous run), complete (everything stored in one transaction, or nothing),
 * history, schedules; error paths. Every reply is checked against the OpenAPI document by api().
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, MINUTE } from "../../src/lib/clock.ts";
import { type AgentsFixture, agentsServer, complete, countRows, rows, startRun } from "../helpers/agents.ts";
import { client, snapshot } from "../helpers/rest.ts";
import { api } from "../helpers/server.ts";

let f: AgentsFixture;
beforeAll(async () => {
  f = await agentsServer();
});
afterAll(() => f.close());

const handoff = (to: string, title: string, priority = "medium") =>
  f.call("/api/mcp/handoffs", { body: { from: "manual", to, title, priority } }).then((r) => r.json.handoffId as string);
const insight = (title: string, impact = "medium") => f.call("/api/mcp/feed", { body: { title, impact } }).then((r) => r.json.insightId);

describe("POST /api/agents/{id}/runs", () => {
  it("starts a running run and claims the queued handoffs, critical first, once", async () => {
    const low = await handoff("sales", "Low one", "low");
    f.s.clock.advance(MINUTE);
    const critical = await handoff("sales", "Critical one", "critical");
    const other = await handoff("revenue", "For another agent", "critical");
    const run = await startRun(f.call, "sales");
    expect(run.runId).toMatch(/^run_[0-9A-Z]{26}$/);
    expect(run.context.handoffs.map((h) => h.id)).toEqual([critical, low]);
    expect(run.context.handoffs[0]).toEqual({
      id: critical,
      from: "manual",
      to: "sales",
      title: "Critical one",
      context: null,
      priority: "critical",
      type: null,
      createdAt: new Date(f.s.clock.now()).toISOString(),
      evidence: [],
      provenance: "internal",
    });
    expect(await rows(f.s.db, "SELECT status, run_id FROM handoffs WHERE id IN (?, ?, ?) ORDER BY id", [low, critical, other])).toEqual([
      { status: "claimed", run_id: run.runId },
      { status: "claimed", run_id: run.runId },
      { status: "queued", run_id: null },
    ]);
    expect((await startRun(f.call, "sales")).context.handoffs).toEqual([]);
    const [stored] = await rows(f.s.db, "SELECT status, started_at, finished_at FROM agent_runs WHERE id = ?", [run.runId]);
    expect(stored).toEqual({ status: "running", started_at: f.s.clock.now(), finished_at: null });
  });

  it("claims each handoff exactly once across 20 concurrent starts", async () => {
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await handoff("product", `Concurrent ${i}`, i % 3 === 0 ? "critical" : "medium"));
    const runs = await Promise.all(Array.from({ length: 20 }, () => startRun(f.call, "product")));
    const claimed = runs.flatMap((r) => r.context.handoffs.map((h) => h.id));
    expect(claimed.sort()).toEqual([...ids].sort());
    expect(new Set(runs.map((r) => r.runId)).size).toBe(20);
    const owners = await rows<{ run_id: string; n: number }>(
      f.s.db,
      "SELECT run_id, count(*) AS n FROM handoffs WHERE to_agent = 'product' GROUP BY run_id",
    );
    for (const o of owners) expect(runs.find((r) => r.runId === o.run_id)?.context.handoffs).toHaveLength(o.n);
  });

  it("hands over the insights posted since the agent's previous run", async () => {
    await insight("Before any growth run");
    const first = await startRun(f.call, "growth");
    expect(first.context.insights.map((i) => i.title)).toContain("Before any growth run");
    f.s.clock.advance(MINUTE);
    const id = await insight("Churn doubled in the EU", "high");
    await insight("A low one", "low");
    f.s.clock.advance(MINUTE);
    const second = await startRun(f.call, "growth");
    expect(second.context.insights.map((i) => i.title)).toEqual(["Churn doubled in the EU", "A low one"]);
    expect(second.context.insights[0]).toMatchObject({ id, agent: "manual", type: "insight", impact: "high", detail: null });
    f.s.clock.advance(MINUTE);
    expect((await startRun(f.call, "growth")).context.insights).toEqual([]);
  });

  it("answers 404 for an unknown agent and 403 without an admin credential", async () => {
    const res = await f.call("/api/agents/nobody/runs", { method: "POST" });
    expect(res.status).toBe(404);
    expect(res.json.error).toBe("not_found");
    const reader = await client(f.s, "operator", ["read"]);
    const refused = await reader.call("/api/agents/sales/runs", { method: "POST" });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: "insufficient_scope", required_scope: "admin" });
    const pro = await client(f.s, "pro", ["read"]);
    expect((await pro.call("/api/agents/sales/runs")).json.error).toBe("insufficient_scope");
    expect((await api(f.s.url)("/api/agents/sales/runs", { method: "POST" })).status).toBe(401);
  });
});

describe("POST /api/agents/{id}/runs/{runId}/complete", () => {
  it("stores suggestions, metrics, profile, actions, alerts and handoff outcomes together", async () => {
    const h1 = await handoff("compliance", "Review the DPA", "high");
    const h2 = await handoff("compliance", "Check SOC 2 evidence");
    const h3 = await handoff("compliance", "Forgotten one", "low");
    const contact = (await f.call("/api/mcp/contacts", { body: { name: "Ada Lovelace", email: "ada@example.com" } })).json.contactId;
    const run = await startRun(f.call, "compliance");
    f.s.clock.advance(5 * MINUTE);
    const res = await complete(f.call, "compliance", run.runId, {
      status: "ok",
      summary: "Reviewed 2 documents.",
      output: { reviewed: ["DPA", "SOC 2"] },
      suggestions: [{ title: "Renew the SOC 2 report", detail: "It expires in 30 days.", priority: "high" }, { title: "Minor" }],
      metrics: { dau: 10, wau: 50, mrr: 1200 },
      profile: { archetype: "Compliance-heavy B2B", strengths: ["Audit trail"] },
      actions: [
        { title: "Approve the DPA", type: "approval", priority: "critical", contactId: contact, dealId: "deal-7" },
        { title: "File the evidence" },
      ],
      alerts: [{ service: "google", severity: "critical", message: "Drive access revoked." }],
      handoffs: [
        { id: h1, status: "done" },
        { id: h2, status: "failed" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    const now = f.s.clock.now();
    expect(
      await rows(f.s.db, "SELECT status, summary, output, metrics, has_data, finished_at FROM agent_runs WHERE id = ?", [run.runId]),
    ).toEqual([
      {
        status: "ok",
        summary: "Reviewed 2 documents.",
        output: JSON.stringify({ reviewed: ["DPA", "SOC 2"] }),
        metrics: JSON.stringify({ dau: 10, wau: 50, mrr: 1200 }),
        has_data: 1,
        finished_at: now,
      },
    ]);
    expect(
      await rows(f.s.db, "SELECT title, detail, priority, run_id FROM suggestions WHERE agent_id = 'compliance' ORDER BY priority_rank"),
    ).toEqual([
      { title: "Renew the SOC 2 report", detail: "It expires in 30 days.", priority: "high", run_id: run.runId },
      { title: "Minor", detail: "", priority: "medium", run_id: run.runId },
    ]);
    const dna = (await f.call("/api/mcp/dna")).json;
    expect(dna).toMatchObject({ archetype: "Compliance-heavy B2B", strengths: ["Audit trail"], pipeline: [] });
    const actions = (await f.call("/api/mcp/actions?source=compliance")).json.actions;
    expect(actions).toMatchObject([
      {
        title: "Approve the DPA",
        type: "approval",
        priority: "critical",
        lane: "today",
        contactId: contact,
        dealId: "deal-7",
        status: "pending",
      },
      { title: "File the evidence", type: "task", priority: "medium", lane: "this_week", createdBy: "compliance" },
    ]);
    const agents = (await f.call("/api/mcp/agents")).json;
    expect(agents.integrationAlerts).toEqual([
      { service: "google", severity: "critical", message: "Drive access revoked.", flaggedAt: new Date(now).toISOString() },
    ]);
    expect(agents.agents.find((a: any) => a.id === "compliance")).toMatchObject({
      health: "green",
      summary: "Reviewed 2 documents.",
      hasData: true,
    });
    expect(await rows(f.s.db, "SELECT id, status, run_id FROM handoffs WHERE id IN (?, ?, ?) ORDER BY id", [h1, h2, h3])).toEqual([
      { id: h1, status: "done", run_id: run.runId },
      { id: h2, status: "failed", run_id: run.runId },
      // Claimed but not reported: back in the queue for the next run.
      { id: h3, status: "queued", run_id: null },
    ]);
    expect((await startRun(f.call, "compliance")).context.handoffs.map((h) => h.id)).toEqual([h3]);
  });

  it("a later successful run of the agent resolves the alerts it raised; a failed one replaces them per service", async () => {
    const first = await startRun(f.call, "slack");
    await complete(f.call, "slack", first.runId, {
      status: "error",
      summary: "Rate limited.",
      error: "429",
      alerts: [{ service: "slack", severity: "critical", message: "Slack rate limit (1)." }],
    });
    const second = await startRun(f.call, "slack");
    await complete(f.call, "slack", second.runId, {
      status: "error",
      summary: "Rate limited again.",
      alerts: [{ service: "slack", severity: "critical", message: "Slack rate limit (2)." }],
    });
    const open = async () => (await f.call("/api/mcp/agents")).json.integrationAlerts.filter((a: any) => a.service === "slack");
    expect((await open()).map((a: any) => a.message)).toEqual(["Slack rate limit (2)."]);
    const third = await startRun(f.call, "slack");
    await complete(f.call, "slack", third.runId, { status: "ok", summary: "Digest sent." });
    expect(await open()).toEqual([]);
  });

  it("replaces the agent's open suggestions with those a later run reports; leaving the field out keeps them", async () => {
    const titles = async () => (await f.call("/api/mcp/suggestions?agent=pulse")).json.suggestions.map((x: any) => x.title);
    const report = async (body: Record<string, unknown>) => {
      const run = await startRun(f.call, "pulse");
      f.s.clock.advance(MINUTE);
      expect((await complete(f.call, "pulse", run.runId, { status: "ok", summary: "Pulse.", ...body })).status).toBe(200);
    };
    await report({
      suggestions: [
        { title: "Fix onboarding", priority: "low" },
        { title: "Call churned users", priority: "high" },
      ],
    });
    expect(await titles()).toEqual(["Call churned users", "Fix onboarding"]);
    await report({ metrics: { dau: 1, wau: 2, mrr: 3 } });
    expect(await titles()).toEqual(["Call churned users", "Fix onboarding"]);
    await report({ suggestions: [{ title: "Raise prices" }] });
    expect(await titles()).toEqual(["Raise prices"]);
    await report({ suggestions: [] });
    expect(await titles()).toEqual([]);
  });

  it("stores nothing when one item is bad (400 naming it), and nothing twice (409)", async () => {
    const h = await handoff("finance", "Close the books");
    const run = await startRun(f.call, "finance");
    const before = await snapshot(f.s.db);
    const good = { status: "ok", summary: "Done.", suggestions: [{ title: "Fine" }], actions: [{ title: "Fine too" }] };
    const bad = await complete(f.call, "finance", run.runId, {
      ...good,
      actions: [{ title: "Fine" }, { title: "Bad", priority: "urgent" }],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.issues).toEqual([{ path: "actions[1].priority", message: "Must be one of critical, high, medium, low." }]);
    const unknown = await complete(f.call, "finance", run.runId, {
      ...good,
      actions: [{ title: "x", contactId: "con_nope" }],
      handoffs: [{ id: "hof_nope", status: "done" }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.issues.map((i: any) => i.path)).toEqual(["actions[0].contactId", "handoffs[0].id"]);
    const stray = await complete(f.call, "finance", run.runId, { ...good, extra: 1, metrics: { dau: -1, wau: 1, mrr: 1 } });
    expect(stray.status).toBe(400);
    expect(stray.json.issues.map((i: any) => i.path).sort()).toEqual(["extra", "metrics.dau"]);
    expect(await snapshot(f.s.db)).toEqual(before);

    expect((await complete(f.call, "finance", run.runId, { ...good, handoffs: [{ id: h, status: "done" }] })).status).toBe(200);
    const counts = [await countRows(f.s.db, "suggestions"), await countRows(f.s.db, "actions")];
    const again = await complete(f.call, "finance", run.runId, { ...good, status: "error" });
    expect(again.status).toBe(409);
    expect(again.json.error).toBe("run_already_completed");
    expect([await countRows(f.s.db, "suggestions"), await countRows(f.s.db, "actions")]).toEqual(counts);
    expect((await rows(f.s.db, "SELECT status FROM agent_runs WHERE id = ?", [run.runId]))[0]?.status).toBe("ok");
  });

  it("stores the evidence a runner sends; a Crew record ref naming no record of the organization is a 400 naming it, nothing stored", async () => {
    const contact = (await f.call("/api/mcp/contacts", { body: { name: "Evidence Person" } })).json.contactId as string;
    const posted = await insight("Churn is up in the north");
    const run = await startRun(f.call, "growth");
    const mail = { kind: "mail", ref: "<m1@example.com>", title: "Renewal question — ana@example.com", excerpt: "Can we talk?" };
    const before = await snapshot(f.s.db);
    const bad = await complete(f.call, "growth", run.runId, {
      status: "ok",
      summary: "Cited.",
      actions: [{ title: "Call back", evidence: [mail, { kind: "contact", ref: "con_01AAAAAAAAAAAAAAAAAAAAAAAA", title: "Nobody" }] }],
      insights: [{ title: "Seen", evidence: [{ kind: "insight", ref: "ins_nope", title: "Made up" }] }],
      newHandoffs: [{ to: "sales", title: "Follow", evidence: [{ kind: "feed_item", ref: "x", title: "t", url: "javascript:alert(1)" }] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.issues.map((i: any) => i.path).sort()).toEqual(["newHandoffs[0].evidence[0].url"]);
    const unknown = await complete(f.call, "growth", run.runId, {
      status: "ok",
      summary: "Cited.",
      actions: [{ title: "Call back", evidence: [mail, { kind: "contact", ref: "con_01AAAAAAAAAAAAAAAAAAAAAAAA", title: "Nobody" }] }],
      insights: [{ title: "Seen", evidence: [{ kind: "insight", ref: "ins_nope", title: "Made up" }] }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.issues).toEqual([
      { path: "actions[0].evidence[1].ref", message: "No contact with this id in the organization." },
      { path: "insights[0].evidence[0].ref", message: "No insight with this id in the organization." },
    ]);
    expect(await snapshot(f.s.db)).toEqual(before);

    const cited = [mail, { kind: "contact", ref: contact, title: "Evidence Person" }];
    const ok = await complete(f.call, "growth", run.runId, {
      status: "ok",
      summary: "Cited.",
      actions: [{ title: "Call Evidence Person back", evidence: cited }],
      insights: [{ title: "Renewals wobble", evidence: [{ kind: "insight", ref: posted, title: "Churn is up in the north" }] }],
      newHandoffs: [{ to: "sales", title: "Offer a renewal call", evidence: cited }],
    });
    expect(ok.status).toBe(200);
    const action = (await f.call("/api/mcp/actions?source=growth")).json.actions.find((a: any) => a.title === "Call Evidence Person back");
    // Crew decides the trust of what it holds (the contact: a person's); a runner's mail is outside input unless it says otherwise.
    const trusted = [
      { ...mail, trust: "external" },
      { ...cited[1], trust: "internal" },
    ];
    expect([action.evidence, action.runId, action.provenance]).toEqual([trusted, run.runId, "external"]);
    const handoffs = await rows<{ evidence: string }>(f.s.db, "SELECT evidence FROM handoffs WHERE title = 'Offer a renewal call'");
    expect(handoffs.map((h) => JSON.parse(h.evidence))).toEqual([trusted]);
  });

  it("refuses two racing completions of one run: one 200, one 409", async () => {
    const run = await startRun(f.call, "bdr");
    const body = { status: "ok", summary: "Race.", suggestions: [{ title: "Only once" }] };
    const replies = await Promise.all([complete(f.call, "bdr", run.runId, body), complete(f.call, "bdr", run.runId, body)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await countRows(f.s.db, "suggestions", "title = 'Only once'")).toBe(1);
  });

  it("answers 404 for an unknown run, a run of another agent, or an unknown agent", async () => {
    const run = await startRun(f.call, "content");
    for (const path of [
      `/api/agents/content/runs/run_nope/complete`,
      `/api/agents/sales/runs/${run.runId}/complete`,
      `/api/agents/x/runs/${run.runId}/complete`,
    ]) {
      const res = await f.call(path, { body: { status: "ok", summary: "x" } });
      expect(res.status, path).toBe(404);
    }
  });
});

describe("GET /api/agents/{id}/runs and PATCH /api/agents/{id}", () => {
  it("lists the history newest first, running and finished", async () => {
    f.s.clock.advance(HOUR);
    const a = await startRun(f.call, "corpdev");
    await complete(f.call, "corpdev", a.runId, { status: "error", summary: "Failed.", error: "boom" });
    f.s.clock.advance(MINUTE);
    const b = await startRun(f.call, "corpdev");
    const res = await f.call("/api/agents/corpdev/runs?limit=5");
    expect(res.status).toBe(200);
    expect(res.json.runs).toEqual([
      expect.objectContaining({ id: b.runId, agent: "corpdev", status: "running", finishedAt: null, summary: null }),
      expect.objectContaining({
        id: a.runId,
        status: "error",
        summary: "Failed.",
        error: "boom",
        hasData: false,
        output: null,
        metrics: null,
      }),
    ]);
    expect((await f.call("/api/agents/corpdev/runs?limit=1")).json.runs).toHaveLength(1);
    expect((await f.call("/api/agents/corpdev/runs?limit=0")).status).toBe(400);
    expect((await f.call("/api/agents/nobody/runs")).status).toBe(404);
  });

  it("edits a schedule (validated with croner) and clears it", async () => {
    const res = await f.call("/api/agents/pulse", { method: "PATCH", body: { schedule: "*/30 * * * *" } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: "pulse", schedule: "*/30 * * * *", timeZone: "UTC", runner: "built-in" });
    expect(Date.parse(res.json.nextRunAt)).toBeGreaterThan(f.s.clock.now());
    const sales = await f.call("/api/agents/sales", { method: "PATCH", body: { schedule: "0 9 * * 1-5" } });
    expect(sales.json).toMatchObject({ runner: "model", schedule: "0 9 * * 1-5" });
    const cleared = await f.call("/api/agents/sales", { method: "PATCH", body: { schedule: null } });
    expect(cleared.json).toMatchObject({ schedule: null, nextRunAt: null });
    for (const schedule of ["61 * * * *", "0 8 * *", "every day", 5]) {
      const bad = await f.call("/api/agents/pulse", { method: "PATCH", body: { schedule } });
      expect(bad.status, String(schedule)).toBe(400);
      expect(bad.json.issues[0].path).toBe("schedule");
    }
    expect((await f.call("/api/agents/pulse", { method: "PATCH", body: {} })).status).toBe(400);
    expect((await f.call("/api/agents/nobody", { method: "PATCH", body: { schedule: null } })).status).toBe(404);
    expect((await rows(f.s.db, "SELECT schedule FROM agents WHERE id = 'pulse'"))[0]?.schedule).toBe("*/30 * * * *");
  });
});
