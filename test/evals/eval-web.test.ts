/**
 * The evaluation in the web app and the API (scripted model on loopback): an owner's "Run
 * evaluation" on /settings/model runs in the background and its scorecard shows on the page; the
 * latest score of each agent is on /agents/{id} and in GET /api/agents/{id}; members cannot start one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSets } from "../../src/agents/eval/sets.ts";
import { evalRunning } from "../../src/web/eval-page.ts";
import { evalScript, summaryOnlyScript } from "../helpers/eval-models.ts";
import { client } from "../helpers/rest.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

describe("Run evaluation on /settings/model, scores on /agents/{id} and GET /api/agents/{id} (scripted model)", () => {
  let model: ScriptedModel;
  let s: TestServer;
  let owner: Browserish;
  beforeAll(async () => {
    model = await startScriptedModel(evalScript(await loadSets()));
    s = await startServer({ env: modelEnv(model) });
    const user = await s.createUser("operator", undefined, "owner");
    owner = new Browserish(s.url);
    await owner.signIn(user.email);
  });
  afterAll(async () => {
    await s?.close();
    await model?.close();
  });

  it("before any evaluation: the page offers the button, the API says null", async () => {
    const page = await owner.request("/settings/model");
    expect(page.text).toContain("scripted-model has not been evaluated yet.");
    expect(page.text).toContain("Run evaluation</button>");
    const { call } = await client(s, "operator", ["admin"]);
    const agent = await call("/api/agents/inbox");
    expect(agent.status).toBe(200);
    expect(agent.json).toMatchObject({ id: "inbox", runner: "model", eval: null });
    expect((await owner.request("/agents/inbox")).text).toContain("Not evaluated yet");
  });

  it("runs in the background and shows the scorecard when done", async () => {
    const csrf = await owner.csrfToken("/settings/model");
    const started = await owner.request("/settings/model/eval", { form: { csrf } });
    expect(started.status).toBe(303);
    expect(evalRunning(s.org.id)).toBe(true);
    const running = await owner.request("/settings/model");
    expect(running.text).toContain("Evaluation running since");
    expect(running.text).not.toContain("Run evaluation</button>");
    for (let i = 0; i < 600 && evalRunning(s.org.id); i++) await new Promise((r) => setTimeout(r, 50));
    expect(evalRunning(s.org.id)).toBe(false);
    const done = await owner.request("/settings/model");
    expect(done.text).toContain('<a href="/agents/inbox">inbox</a>');
    expect(done.text).not.toContain("FAIL");
    expect(done.text).toContain("Run evaluation</button>");
    const agentPage = await owner.request("/agents/inbox");
    expect(agentPage.text).toMatch(/Evaluation <span class="badge badge-green">passed<\/span>/);
    expect(agentPage.text).toMatch(/<dt>Attack success<\/dt><dd>0 % \(0 of 30\)/);
    expect(agentPage.text).toMatch(/<dt>Utility under attack<\/dt><dd>100 %/);
    expect(agentPage.text).not.toContain("Failed:");
    const { call } = await client(s, "operator", ["admin"]);
    const api = await call("/api/agents/inbox");
    expect(api.json.eval).toMatchObject({
      provider: "openai-compatible",
      model: "scripted-model",
      passed: true,
      failed: [],
      scenarios: 4,
      failedRuns: 0,
      factsFound: 5,
      factsExpected: 5,
      utilityPercent: 100,
      utilityUnderAttackPercent: 100,
      attackSuccessPercent: 0,
      citationPercent: 100,
      attacksTested: 30,
      attacksSucceeded: [],
    });
  });

  it("a model that writes nothing: /agents/{id} and the API show the failed verdict and the bar; the history keeps both evaluations", async () => {
    model.script(summaryOnlyScript);
    const csrf = await owner.csrfToken("/settings/model");
    expect((await owner.request("/settings/model/eval", { form: { csrf } })).status).toBe(303);
    for (let i = 0; i < 600 && evalRunning(s.org.id); i++) await new Promise((r) => setTimeout(r, 50));
    const agentPage = await owner.request("/agents/inbox");
    expect(agentPage.text).toMatch(/Evaluation <span class="badge badge-error">failed<\/span>/);
    expect(agentPage.text).toContain("<li>Failed: utility 0 % (needs ≥ 80 %)</li>");
    const { call } = await client(s, "operator", ["admin"]);
    expect((await call("/api/agents/inbox")).json.eval).toMatchObject({ passed: false, failed: ["utility 0 % (needs ≥ 80 %)"] });
    const page = await owner.request("/settings/model");
    const history = page.text.slice(page.text.indexOf('id="eval-history-h"'));
    expect(history.match(/<tr><td data-label="When">/g)).toHaveLength(2);
    expect(history).toMatch(/badge-error">FAIL.*badge-green">pass/s);
    model.script(evalScript(await loadSets()));
  });

  it("members cannot start one", async () => {
    const member = await s.createUser("operator", undefined, "member");
    const tab = new Browserish(s.url);
    await tab.signIn(member.email);
    const csrf = await tab.csrfToken("/dashboard");
    expect((await tab.request("/settings/model/eval", { form: { csrf } })).status).toBe(403);
    expect(evalRunning(s.org.id)).toBe(false);
  });
});
