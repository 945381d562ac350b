/**
 * One readiness check per run (src/agents/model-run.ts): a scheduled model-backed run asks whether
 * its model and source are there once, takes its slot only after that answer, and a run that
 * cannot start never takes the slot. The model is a scripted server on loopback (a real model is
 * outside this machine's reach).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelRunDeps, SourceAccess } from "../../src/agents/model-run.ts";
import { runAgent } from "../../src/agents/run-agent.ts";
import { runsOf } from "../helpers/agents.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let model: ScriptedModel;
let s: TestServer;
beforeAll(async () => {
  model = await startScriptedModel(() => ({ object: { summary: "Read the news" } }));
  s = await startServer({ env: modelEnv(model) });
});
afterAll(async () => {
  await s?.close();
  await model?.close();
});

/** A source that counts how often a run asks whether it is there. */
function countedSources(missing: string | null) {
  const asked = { missing: 0 };
  const sources: SourceAccess = {
    missing: async () => {
      asked.missing++;
      return missing;
    },
    read: async () => ({
      items: [
        {
          kind: "feed",
          id: "g1",
          title: "Prices up",
          date: "2026-11-20T08:00:00.000Z",
          text: "Prices up.",
          source: "https://news.example.com/feed.xml",
        },
      ],
      missing: null,
      markSeen: async () => {},
    }),
  };
  return { asked, sources };
}

function countedClaim() {
  const claimed = { times: 0 };
  return { claimed, claim: async () => ++claimed.times > 0 };
}

describe("a scheduled model-backed run", () => {
  it("checks its model and source once, then takes its slot and runs", async () => {
    const { asked, sources } = countedSources(null);
    const { claimed, claim } = countedClaim();
    const deps: ModelRunDeps = { ...s.deps, sources };
    const run = await runAgent(deps, s.org.id, "research", { kind: "schedule", slot: s.clock.now(), claim });
    expect(run).toMatchObject({ agentId: "research", status: "ok" });
    expect(asked.missing).toBe(1);
    expect(claimed.times).toBe(1);
  });

  it("without its source starts nothing, says what is missing, and leaves the slot to be taken later", async () => {
    const { asked, sources } = countedSources("Needs a feed: add one in Settings → Sources");
    const { claimed, claim } = countedClaim();
    const before = (await runsOf(s.db, "compliance")).length;
    const run = await runAgent({ ...s.deps, sources }, s.org.id, "compliance", { kind: "schedule", slot: s.clock.now(), claim });
    expect(run).toMatchObject({ runId: null, status: "skipped", summary: "Needs a feed: add one in Settings → Sources." });
    expect(asked.missing).toBe(1);
    expect(claimed.times).toBe(0);
    expect(await runsOf(s.db, "compliance")).toHaveLength(before);
  });
});
