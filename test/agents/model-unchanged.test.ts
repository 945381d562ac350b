/**
 * Unchanged inputs are not sent again (src/docs/notes/model.md), against a scripted model server on loopback (a
 * real model is outside this machine's reach): a run whose inputs equal those of the agent's
 * previous successful model run ends "nothing new since …" without a model call; new data makes
 * the next run call the model again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ModelRunDeps, runModelAgent } from "../../src/agents/model-run.ts";
import { MINUTE } from "../../src/lib/clock.ts";
import { rows } from "../helpers/agents.ts";
import { client } from "../helpers/rest.ts";
import { fakeSources, modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  s = model = undefined;
});

describe("unchanged inputs (scripted model server)", () => {
  it("skips a run whose inputs did not change since the previous successful model run, without a model call", async () => {
    model = await startScriptedModel();
    s = await startServer({ env: modelEnv(model) });
    const deps: ModelRunDeps = { ...s.deps, sources: fakeSources() };
    const { call } = await client(s, "operator", ["admin"]);
    s.clock.set(Date.parse("2026-11-23T09:00:00Z"));
    expect((await runModelAgent(deps, s.org, "growth")).status).toBe("ok");
    expect(model.requests).toHaveLength(1);

    s.clock.advance(30 * MINUTE);
    const again = await runModelAgent(deps, s.org, "growth");
    expect(again).toMatchObject({
      status: "skipped",
      summary: "Nothing new since 2026-11-23T09:00:00.000Z (the same inputs as that run): no model call.",
      tokensIn: 0,
    });
    expect(model.requests).toHaveLength(1);
    expect((await call("/api/agents/growth/runs")).json.runs[0]).toMatchObject({ status: "ok", summary: again.summary });

    s.clock.advance(MINUTE);
    await call("/api/mcp/feed", { body: { title: "Signups doubled after the launch", impact: "high" } });
    expect((await runModelAgent(deps, s.org, "growth")).status).toBe("ok");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages[0]?.text).toContain("Signups doubled after the launch");
    const hashes = await rows<{ input_hash: string | null }>(
      s.db,
      "SELECT input_hash FROM agent_runs WHERE agent_id = 'growth' ORDER BY started_at",
    );
    expect(hashes.map((h) => h.input_hash === null)).toEqual([false, true, false]);
  });
});
