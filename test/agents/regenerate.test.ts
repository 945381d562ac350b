/**
 * Regeneration after writes that must surface (src/docs/notes/rest-api.md): a new action, a critical or high handoff,
 * a high-impact insight regenerate the standup (mode by local time) and every user's briefing; a
 * burst regenerates once; a critical handoff runs a built-in destination at once. The regenerator
 * runs without timers here: the test flushes it where the server would after its debounce.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRegenerator } from "../../src/agents/regenerate.ts";
import { MINUTE } from "../../src/lib/clock.ts";
import { type AgentsFixture, agentsServer, complete, countRows, rows, runsOf, startRun } from "../helpers/agents.ts";
import { fastUser } from "../helpers/rest.ts";

let f: AgentsFixture;
afterEach(() => f.close());

const surfaceRuns = async () => [(await runsOf(f.s.db, "standup")).length, (await runsOf(f.s.db, "briefing")).length];

describe("regeneration", () => {
  it("puts a new critical action first in every briefing and in the standup", async () => {
    f = await agentsServer();
    const second = await fastUser(f.s);
    await f.call("/api/mcp/actions", { body: { title: "Send the newsletter", priority: "low" } });
    await f.regenerator.flush();
    expect(await surfaceRuns()).toEqual([1, 1]);
    f.s.clock.advance(MINUTE);
    const { json } = await f.call("/api/mcp/actions", { body: { title: "Payment provider is down", priority: "critical" } });
    expect(f.regenerator.pending()).toBe(1);
    await f.regenerator.flush();
    expect(f.regenerator.pending()).toBe(0);

    const briefing = (await f.call("/api/mcp/briefing")).json;
    expect(briefing.generatedAt).toBe(new Date(f.s.clock.now()).toISOString());
    expect(briefing.pendingActions[0]).toEqual({
      id: expect.stringMatching(/^act_/),
      title: "Payment provider is down",
      priority: "critical",
      source: "api",
    });
    expect(briefing.briefing).toContain("Critical: Payment provider is down.");
    const forSecond = await rows(f.s.db, "SELECT body FROM briefings WHERE user_id = ? ORDER BY generated_at DESC LIMIT 1", [second.id]);
    expect(JSON.parse(forSecond[0]?.body as string).pendingActions[0].title).toBe("Payment provider is down");

    const standup = (await f.call("/api/mcp/standup")).json;
    expect(standup.mode).toBe("morning"); // 09:00 UTC
    expect(standup.interventions[0]).toEqual({ title: "Payment provider is down", priority: "critical", agent: "api" });
    expect(json.actionId).toMatch(/^act_/);
    expect(await surfaceRuns()).toEqual([2, 2]);
  });

  it("regenerates once for a burst, for high-impact insights and critical/high handoffs, not for the rest", async () => {
    f = await agentsServer();
    await f.call("/api/mcp/feed", { body: { title: "Minor observation", impact: "medium" } });
    await f.call("/api/mcp/handoffs", { body: { from: "manual", to: "sales", title: "Medium handoff" } });
    expect(f.regenerator.pending()).toBe(0);
    await f.regenerator.flush();
    expect(await surfaceRuns()).toEqual([0, 0]);

    await f.call("/api/mcp/feed", { body: { title: "Competitor cut prices by 40%", impact: "high" } });
    await f.call("/api/mcp/handoffs", { body: { from: "manual", to: "sales", title: "High handoff", priority: "high" } });
    await f.call("/api/mcp/actions", { body: { actions: [{ title: "One" }, { title: "Two" }] } });
    await f.regenerator.flush();
    expect(await surfaceRuns()).toEqual([1, 1]);
    const briefing = (await f.call("/api/mcp/briefing")).json;
    expect(briefing.briefing).toContain("New insights: Competitor cut prices by 40% (high impact)");
  });

  it("runs a built-in destination of a critical handoff at once; other agents get it at their next run", async () => {
    f = await agentsServer();
    const toPulse = (
      await f.call("/api/mcp/handoffs", { body: { from: "sales", to: "pulse", title: "Recount MRR", priority: "critical" } })
    ).json.handoffId;
    const toSales = (
      await f.call("/api/mcp/handoffs", { body: { from: "manual", to: "sales", title: "Call Acme now", priority: "critical" } })
    ).json.handoffId;
    await f.regenerator.flush();
    const pulse = await runsOf(f.s.db, "pulse");
    expect(pulse).toHaveLength(1);
    expect(pulse[0]?.summary).toContain("Received 1 handoff.");
    expect(await rows(f.s.db, "SELECT id, status FROM handoffs ORDER BY id")).toEqual([
      { id: toPulse, status: "done" },
      { id: toSales, status: "queued" },
    ]);
    expect(await surfaceRuns()).toEqual([1, 1]);
    expect((await startRun(f.call, "sales")).context.handoffs.map((h) => h.id)).toEqual([toSales]);
  });

  it("surfaces actions an agent run creates, and a critical handoff to the standup as an intervention", async () => {
    f = await agentsServer();
    await f.call("/api/mcp/handoffs", { body: { from: "compliance", to: "standup", title: "Audit starts Monday", priority: "critical" } });
    const run = await startRun(f.call, "revenue");
    await complete(f.call, "revenue", run.runId, {
      status: "ok",
      summary: "Renewal at risk.",
      actions: [{ title: "Approve the Northwind discount", type: "approval", priority: "high" }],
    });
    await f.regenerator.flush();
    const standup = (await f.call("/api/mcp/standup")).json;
    expect(standup.interventions).toEqual([
      { title: "Audit starts Monday", priority: "critical", agent: "compliance" },
      { title: "Approve the Northwind discount", priority: "high", agent: "revenue" },
    ]);
    expect(await rows(f.s.db, "SELECT status FROM handoffs")).toEqual([{ status: "done" }]);
  });

  it("picks the standup's mode by local time: morning before 12:00, else evening", async () => {
    f = await agentsServer("Asia/Tokyo");
    f.s.clock.set(Date.parse("2026-11-22T02:59:00Z")); // 11:59 in Tokyo
    await f.call("/api/mcp/actions", { body: { title: "Before noon" } });
    await f.regenerator.flush();
    expect((await f.call("/api/mcp/standup")).json.mode).toBe("morning");
    f.s.clock.set(Date.parse("2026-11-22T03:00:00Z")); // 12:00 in Tokyo
    await f.call("/api/mcp/actions", { body: { title: "At noon" } });
    await f.regenerator.flush();
    const latest = (await f.call("/api/mcp/standup")).json;
    expect(latest).toMatchObject({ mode: "evening", generatedAt: "2026-11-22T03:00:00.000Z" });
    expect(latest.briefing).toMatch(/^Evening wrap-up\./);
    expect((await f.call("/api/mcp/standup?mode=morning")).json.generatedAt).toBe("2026-11-22T02:59:00.000Z");
  });

  it("regenerates after its debounce on its own timer, once for a burst", async () => {
    f = await agentsServer();
    // The PostgreSQL driver opens a connection on a setTimeout(0): open the whole pool first, so
    // no connection is needed while setTimeout is faked (on SQLite this is ten plain reads).
    await Promise.all(Array.from({ length: 10 }, () => f!.s.db.one("SELECT 1 AS x")));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const timed = createRegenerator(f.s.deps, { debounceMs: 1_000 });
    try {
      const event = {
        type: "action.created" as const,
        orgId: f.s.org.id,
        actionId: "act_x",
        title: "Call Acme",
        priority: "low",
        status: "open",
        source: "api",
        contactId: null,
        dealId: null,
        at: 0,
      };
      f.s.deps.events.emit(event);
      await vi.advanceTimersByTimeAsync(600);
      f.s.deps.events.emit(event);
      await vi.advanceTimersByTimeAsync(399);
      expect(timed.pending()).toBe(1);
      await vi.advanceTimersByTimeAsync(1); // the first event's wait is over: the burst flushes
      expect(timed.pending()).toBe(0);
      await timed.flush();
      expect(await surfaceRuns()).toEqual([1, 1]);
    } finally {
      vi.useRealTimers();
      await timed.stop();
    }
  });
});

describe("webhook outbox", () => {
  it("records standup.ready for morning standups only and briefing.completed per briefing, with the write", async () => {
    f = await agentsServer();
    const hook = await f.call("/api/webhooks", {
      body: { url: "http://127.0.0.1:9/hook", events: ["standup.ready", "briefing.completed"] },
    });
    expect(hook.status).toBe(200);
    const events = async () =>
      (
        await rows<{ event: string; payload: string }>(
          f.s.db,
          "SELECT event, payload FROM webhook_deliveries ORDER BY created_at, event_id",
        )
      ).map((r) => ({ event: r.event, ...JSON.parse(r.payload) }));
    f.s.clock.set(Date.parse("2026-11-22T08:00:00Z"));
    await f.scheduler.tick(); // morning standup (08:00 UTC slot) and briefing
    const standupId = (await f.call("/api/mcp/standup")).json.id;
    const briefingId = (await f.call("/api/mcp/briefing")).json.id;
    expect(await events()).toEqual(
      expect.arrayContaining([
        { event: "standup.ready", standupId, timestamp: "2026-11-22T08:00:00.000Z" },
        expect.objectContaining({
          event: "briefing.completed",
          userId: f.userId,
          briefingId,
          summary: expect.stringContaining("Good morning"),
        }),
      ]),
    );
    expect(await countRows(f.s.db, "webhook_deliveries", "event = 'standup.ready'")).toBe(1);
    f.s.clock.set(Date.parse("2026-11-22T18:00:00Z"));
    await f.scheduler.tick(); // evening standup: no standup.ready
    expect((await f.call("/api/mcp/standup")).json.mode).toBe("evening");
    expect(await countRows(f.s.db, "webhook_deliveries", "event = 'standup.ready'")).toBe(1);
  });
});
