/**
 * The one run decision (src/agents/run-agent.ts): the runner kind comes from the catalog only, a
 * model-backed agent without its model starts nothing and says what is missing, a built-in one
 * runs, and the standup it stores raises its webhook event through commit() (one transaction with
 * the outbox row, the domain event emitted after it).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JOBS } from "../../src/agents/jobs.ts";
import { NEEDS_MODEL } from "../../src/agents/model-run.ts";
import { runAgent, runnerOf } from "../../src/agents/run-agent.ts";
import { BUILT_IN_RUNNERS } from "../../src/agents/runners.ts";
import type { DomainEvent } from "../../src/domain.ts";
import { type AgentsFixture, agentsServer, rows, runsOf } from "../helpers/agents.ts";

let f: AgentsFixture;
beforeEach(async () => {
  f = await agentsServer();
});
afterEach(() => f.close());

describe("runAgent", () => {
  it("reads the runner kind from the catalog alone", () => {
    expect([...BUILT_IN_RUNNERS].sort()).toEqual(["briefing", "dna", "pulse", "standup"]);
    for (const job of JOBS) expect(runnerOf(job.id), job.id).toBe(job.runner);
  });

  it("starts nothing for a model-backed agent without a model, and says what is missing", async () => {
    const run = await runAgent(f.s.deps, f.s.org.id, "sales", { kind: "now" });
    expect(run).toMatchObject({ runId: null, agentId: "sales", status: "skipped", summary: `${NEEDS_MODEL}.` });
    expect(await runsOf(f.s.db, "sales")).toHaveLength(0);
  });

  it("runs a built-in agent; a morning standup's event is committed to the outbox and emitted after it", async () => {
    await f.call("/api/webhooks", { body: { url: "https://hooks.example.com/crew", events: ["standup.ready"] } });
    const seen: DomainEvent[] = [];
    const off = f.s.deps.events.on((e) => {
      seen.push(e);
    });
    f.s.clock.set(Date.parse("2026-11-23T08:00:00Z")); // 08:00 in the default time zone (UTC)
    const run = await runAgent(f.s.deps, f.s.org.id, "standup", { kind: "cli" });
    off();
    expect(run).toMatchObject({ agentId: "standup", status: "ok" });
    const outbox = await rows<{ event: string }>(f.s.db, "SELECT event FROM webhook_deliveries");
    expect(outbox.map((r) => r.event)).toEqual(["standup.ready"]);
    await new Promise((resolve) => setTimeout(resolve, 0)); // listeners are called after the commit, asynchronously
    expect(seen.map((e) => e.type)).toEqual(["standup.ready"]);
  });
});
