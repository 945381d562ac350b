/**
 * The aim of issues 20 and 31 (benchmark): a model-backed run's own overhead — everything but waiting for
 * the model — at the catalog's input limits with 50 open suggestions, 50 open actions and 30
 * dismissals handed over, the write policy's merge by meaning and held checks included. The model is a scripted OpenAI-compatible server on loopback that answers at once, so the
 * measured time is Crew's work plus one loopback HTTP exchange (an upper bound of the overhead).
 * The figure is printed; the assertion is loose (the machine is shared), the target is ≤ 20 ms.
 */
import { loadavg } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { type ModelRunDeps, runModelAgent } from "../../src/agents/model-run.ts";
import { actionInsertStatement, newActionRow } from "../../src/store/actions/actions.ts";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { insightInsertStatement } from "../../src/store/feed/insights.ts";
import { fakeSources, handlesIn, modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Timed runs (after one warm-up): enough for a p95. */
const RUNS = Number(process.env.OVERHEAD_RUNS ?? 20);

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterAll(async () => {
  await s?.close();
  await model?.close();
});

describe("a model-backed run's own overhead (scripted model server)", () => {
  it("stays small with 50 open suggestions, 50 open actions, 30 dismissals and the catalog's limits of contacts and insights", async () => {
    model = await startScriptedModel((r) => ({
      object: {
        summary: "ok",
        suggestions: [{ title: `Fresh idea ${r.body.messages.length}`, evidence: handlesIn(r, "c").slice(0, 2) }],
        actions: [{ title: "Call the top lead", priority: "high", evidence: handlesIn(r, "a").slice(0, 1) }],
      },
    }));
    s = await startServer({ env: modelEnv(model) });
    const now = s.clock.now();
    const orgId = s.org.id;
    const statements = [];
    for (let i = 0; i < 50; i++) {
      statements.push(
        suggestionInsertStatement({
          id: `sug_b${i}`,
          orgId,
          agentId: "growth",
          runId: null,
          title: `Idea ${i}`,
          detail: "x".repeat(300),
          priority: "medium",
          createdAt: now,
        }),
        actionInsertStatement(
          newActionRow(
            { title: `Task ${i}`, description: "y".repeat(300), priority: "medium", type: "task" },
            { orgId, source: "api", createdBy: "u", now },
          ),
        ),
      );
    }
    for (let i = 0; i < 30; i++) {
      statements.push({
        sql: "UPDATE suggestions SET status = 'dismissed', reason = 'not now', updated_at = ? WHERE id = ?",
        args: [now, `sug_d${i}`],
      });
    }
    for (let i = 0; i < 30; i++) {
      statements.splice(
        0,
        0,
        suggestionInsertStatement({
          id: `sug_d${i}`,
          orgId,
          agentId: "sales",
          runId: null,
          title: `Dismissed idea number ${i} about pricing`,
          detail: "v".repeat(300),
          priority: "low",
          createdAt: now - 1000,
        }),
      );
    }
    for (let i = 0; i < 40; i++) {
      statements.push(
        {
          sql: "INSERT INTO contacts (id, org_id, name, email, notes, relationship, created_by, created_at, updated_at, name_key) VALUES (?, ?, ?, ?, ?, 'customer', 'u', ?, ?, ?)",
          args: [`con_b${i}`, orgId, `Person ${i}`, `p${i}@example.com`, "z".repeat(300), now, now, `person ${i}`],
        },
        insightInsertStatement({
          id: `ins_b${i}`,
          orgId,
          agent: "research",
          title: `Insight ${i}`,
          detail: "w".repeat(300),
          type: "insight",
          impact: "high",
          createdBy: "research",
          createdAt: now,
        }),
      );
    }
    await s.db.batch(statements, "write");
    const deps: ModelRunDeps = { ...s.deps, sources: fakeSources() };
    await runModelAgent(deps, s.org, "sales"); // warm-up: prepared statements, module caches
    const times: number[] = [];
    // CPU time of this process (Crew and the scripted server's side of the exchange): steady when others share the machine.
    const cpuTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Changed data (outside the timing), so no run is skipped for unchanged inputs.
      await s.db.execute({ sql: "UPDATE contacts SET notes = ? WHERE org_id = ?", args: [`${i} ${"z".repeat(290)}`, s.org.id] });
      const started = performance.now();
      const cpu = process.cpuUsage();
      const run = await runModelAgent(deps, s.org, "sales");
      times.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      cpuTimes.push((used.user + used.system) / 1000);
      expect(run.status).toBe("ok");
    }
    times.sort((a, b) => a - b);
    cpuTimes.sort((a, b) => a - b);
    const quantile = (list: number[], q: number) => list[Math.min(list.length - 1, Math.ceil(q * list.length) - 1)] ?? 0;
    const at = (q: number) => quantile(times, q);
    const median = at(0.5);
    console.log(
      `model-backed run overhead (incl. one loopback HTTP exchange), ${RUNS} runs: median ${median.toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, min ${times[0]?.toFixed(1)} ms; CPU median ${quantile(cpuTimes, 0.5).toFixed(1)} ms, p95 ${quantile(cpuTimes, 0.95).toFixed(1)} ms; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    expect(median).toBeLessThan(250);
  });
});
