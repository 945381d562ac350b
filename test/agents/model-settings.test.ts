/**
 * The model connection (src/docs/notes/model.md) against a scripted model server on loopback (a real model is
 * outside this machine's reach): owners' settings with the key sealed and never shown, the
 * environment winning, "Test connection" over REST, the web page and `crew model test`, and the
 * per-organization instructions that the next run sends.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runModelAgent } from "../../src/agents/model-run.ts";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { saveModel } from "../../src/integrations/model/settings.ts";
import { rows } from "../helpers/agents.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { client } from "../helpers/rest.ts";
import {
  modelEnv,
  type RecordedRequest,
  type Reply,
  SCRIPTED_MODEL_KEY,
  type ScriptedModel,
  startScriptedModel,
} from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { Browserish, signedIn } from "../web/client.ts";

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  s = undefined;
  model = undefined;
});

const OWNER_KEY = "sk-owner-saved-key-4242";

/** An owner of the organization, signed in (the model settings and instructions are owners' pages). */
async function signedInOwner(t: TestServer) {
  const user = await t.createUser("operator", undefined, "owner");
  const tab = new Browserish(t.url);
  await tab.signIn(user.email);
  return { user, tab };
}
/** Plain text to the connection test's tiny request, the object to its structured one. */
const pong = (r: RecordedRequest): Reply => (r.body.response_format ? { object: { answer: "pong" } } : { text: "pong" });

describe("an owner's saved model address goes through the outbound policy (src/docs/notes/outbound-requests.md; scripted model server)", () => {
  it("refuses a loopback base URL saved in the settings unless ALLOW_PRIVATE_TARGETS is on, without a request reaching it", async () => {
    model = await startScriptedModel(pong);
    s = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "false", ALLOW_PRIVATE_TARGETS: "false" } });
    const { call } = await client(s, "operator", ["admin"]);
    const refused = await call("/api/integrations/model", {
      body: { provider: "openai-compatible", baseUrl: model.baseUrl, model: "owner-model", apiKey: OWNER_KEY },
    });
    // Said on save, naming the way out (issue 33), and nothing stored.
    expect(refused.status).toBe(400);
    expect(refused.json.issues).toEqual([{ path: "baseUrl", message: expect.stringContaining("ALLOW_PRIVATE_TARGETS is off") }]);
    expect(refused.json.issues[0].message).toContain("CREW_MODEL_BASE_URL");
    expect(await rows(s.db, "SELECT * FROM model_settings")).toEqual([]);
    // Saved before this check existed (or while ALLOW_PRIVATE_TARGETS was on): the test says why.
    await saveModel(
      s.deps,
      s.org.id,
      { kind: "cli" },
      { provider: "openai-compatible", baseUrl: model.baseUrl, model: "owner-model", apiKey: OWNER_KEY },
    );
    const test = await call("/api/integrations/model/test", { method: "POST" });
    expect(test.json.ok).toBe(false);
    expect(test.json.error).toContain("ALLOW_PRIVATE_TARGETS is off");
    expect(test.text).not.toContain(OWNER_KEY);
    expect(model.requests).toHaveLength(0);
    expect((await runModelAgent(s.deps, s.org, "growth")).status).toBe("error");
    expect(model.requests).toHaveLength(0);
  });
});

describe("model settings over REST (scripted model server)", () => {
  it("saves the settings with the key sealed, never returns it, and runs with them", async () => {
    model = await startScriptedModel(pong);
    s = await startServer();
    const { call } = await client(s, "operator", ["admin"]);
    expect((await call("/api/integrations/model")).json).toMatchObject({
      connected: false,
      source: null,
      dailyTokens: 1_000_000,
      tokensToday: 0,
    });

    const bad = await call("/api/integrations/model", { body: { provider: "openai-compatible", model: "m", apiKey: OWNER_KEY } });
    expect(bad.status).toBe(400);
    expect(bad.json.issues).toEqual([{ path: "baseUrl", message: "Required for openai-compatible." }]);
    expect(await rows(s.db, "SELECT * FROM model_settings")).toEqual([]);
    expect((await call("/api/integrations/model", { body: { provider: "gemini", model: "m" } })).json.issues[0].path).toBe("provider");

    const saved = await call("/api/integrations/model", {
      body: { provider: "openai-compatible", baseUrl: model.baseUrl, model: "owner-model", apiKey: OWNER_KEY, dailyTokens: 5000 },
    });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ connected: true, source: "settings", model: "owner-model", hasApiKey: true, dailyTokens: 5000 });
    expect(saved.text).not.toContain(OWNER_KEY);
    const stored = await rows<{ api_key: string }>(s.db, "SELECT api_key FROM model_settings");
    expect(stored[0]?.api_key).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(OWNER_KEY);

    const test = await call("/api/integrations/model/test", { method: "POST" });
    expect(test.json).toEqual({
      ok: true,
      answer: "pong",
      model: "owner-model",
      tokensIn: 200,
      tokensOut: 40,
      structured: { ok: true, mode: "json_schema" },
    });
    expect(model.requests[0]?.headers.authorization).toBe(`Bearer ${OWNER_KEY}`);

    // Saving again without a key keeps the saved one.
    await call("/api/integrations/model", { body: { provider: "openai-compatible", baseUrl: model.baseUrl, model: "owner-model-2" } });
    model.script(() => ({ object: { summary: "Ran with the owner's model" } }));
    expect((await runModelAgent(s.deps, s.org, "growth")).status).toBe("ok");
    expect(model.requests.at(-1)?.body.model).toBe("owner-model-2");
    expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${OWNER_KEY}`);

    model.script(() => ({ status: 404, error: { error: { message: "model 'owner-model-2' not found" } } }));
    const failing = (await call("/api/integrations/model/test", { method: "POST" })).json;
    expect(failing.ok).toBe(false);
    expect(failing.error).toContain("HTTP 404");
    expect(failing.error).toContain("model 'owner-model-2' not found");

    expect((await call("/api/integrations/model", { method: "DELETE" })).status).toBe(200);
    expect((await call("/api/integrations/model", { method: "DELETE" })).status).toBe(404);
    expect((await call("/api/integrations/model")).json.connected).toBe(false);
  });

  it("lets the environment win, and says so", async () => {
    model = await startScriptedModel(pong);
    s = await startServer({ env: modelEnv(model) });
    const { call } = await client(s, "operator", ["admin"]);
    await call("/api/integrations/model", { body: { provider: "anthropic", model: "saved-but-unused", apiKey: OWNER_KEY } });
    const status = (await call("/api/integrations/model")).json;
    expect(status).toMatchObject({ connected: true, source: "environment", provider: "openai-compatible", model: "scripted-model" });
    const { tab } = await signedInOwner(s);
    const page = await tab.request("/settings/model");
    expect(page.status).toBe(200);
    expect(page.text).toContain("which wins over the settings below");
    for (const text of [JSON.stringify(status), page.text]) {
      expect(text).not.toContain(SCRIPTED_MODEL_KEY);
      expect(text).not.toContain(OWNER_KEY);
    }
  });
});

describe("the Model page and the agent page (scripted model server)", () => {
  it("saves settings from the form, tests the connection, and keeps the key out of the page", async () => {
    model = await startScriptedModel(pong);
    s = await startServer();
    const { tab } = await signedInOwner(s);
    const csrf = await tab.csrfToken("/settings/model");
    const bad = await tab.request("/settings/model", {
      form: { csrf, provider: "openai-compatible", baseUrl: "", model: "x", apiKey: OWNER_KEY, dailyTokens: "lots" },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="m-baseUrl-error"');
    expect(bad.text).toContain('id="m-dailyTokens-error"');
    expect(bad.text).not.toContain(OWNER_KEY);
    const saved = await tab.request("/settings/model", {
      form: { csrf, provider: "openai-compatible", baseUrl: model.baseUrl, model: "page-model", apiKey: OWNER_KEY, dailyTokens: "" },
    });
    expect(saved.status).toBe(303);
    const page = await tab.request("/settings/model?done=saved");
    expect(page.text).toContain("Model settings saved.");
    expect(page.text).toContain("page-model");
    expect(page.text).not.toContain(OWNER_KEY);
    // The test's result is a page of its own (303 after the POST), so reloading it sends nothing again.
    const tested = await tab.request("/settings/model/test", { form: { csrf } });
    expect(tested.status).toBe(303);
    expect(tested.headers.get("location")).toBe("/settings/model?done=tested#test-h");
    expect((await tab.request("/settings/model?done=tested")).text).toContain("page-model answered “pong”");

    const member = await signedIn(s, "operator");
    expect((await member.tab.request("/settings/model")).status).toBe(403);
  });

  it("replaces an agent's instructions per organization; the next run sends them; Run now runs it", async () => {
    model = await startScriptedModel(() => ({ object: { summary: "Ran from the page" } }));
    s = await startServer({ env: modelEnv(model) });
    const { call } = await client(s, "operator", ["admin"]);
    const patched = await call("/api/agents/growth", { method: "PATCH", body: { instructions: "Only ever talk about pricing." } });
    expect(patched.json).toMatchObject({ runner: "model", instructions: "Only ever talk about pricing.", customInstructions: true });
    expect((await call("/api/agents/growth", { method: "PATCH", body: { instructions: "  " } })).status).toBe(400);

    const { tab } = await signedInOwner(s);
    const agentPage = await tab.request("/agents/growth");
    expect(agentPage.status).toBe(200);
    expect(agentPage.text).toContain("Only ever talk about pricing.");
    const csrf = await tab.csrfToken("/agents/growth");
    expect((await tab.request("/agents/growth/run", { form: { csrf } })).status).toBe(303);
    expect(model.requests.at(-1)?.system.startsWith("Only ever talk about pricing.\n\nAnswer with exactly one JSON object")).toBe(true);
    const after = await tab.request("/agents/growth");
    expect(after.text).toContain("Stored nothing new.");
    expect(after.text).toContain("100 / 20");

    expect((await tab.request("/agents/growth/instructions", { form: { csrf, reset: "1", instructions: "" } })).status).toBe(303);
    const reset = (await call("/api/agents/growth", { method: "PATCH", body: { schedule: "0 9 * * 1" } })).json;
    expect(reset).toMatchObject({ customInstructions: false });
    expect(reset.instructions).toContain("You are the Growth agent (growth).");
  });
});

describe("crew model test (scripted model server)", () => {
  it("prints the answer, or the exact error and exit code 1", async () => {
    model = await startScriptedModel(pong);
    s = await startServer();
    const env = {
      DATABASE_URL: s.config.databaseUrl,
      CREW_SECRET: "test-secret-test-secret-test-secret-00",
      LOG_LEVEL: "silent",
      ...modelEnv(model),
    };
    const ok = await runCliInProcess(["model", "test"], env);
    expect(ok).toMatchObject({
      code: 0,
      stdout:
        'openai-compatible scripted-model (from environment) answered "pong" (200 tokens in, 40 out).\nStructured output works (response_format json_schema).\n',
    });
    model.script(() => ({ status: 401, error: { error: { message: "bad key" } } }));
    const failed = await runCliInProcess(["model", "test"], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("model test failed: The model endpoint refused the credentials (HTTP 401)");
    expect(failed.stderr).not.toContain(SCRIPTED_MODEL_KEY);
  });
});

describe("standup and briefing in words (scripted model server)", () => {
  it("lets the model write the text of scheduled runs, keeping the structured parts; a failing model keeps the composed text", async () => {
    model = await startScriptedModel((r) => ({
      object: { text: `Worded: ${r.messages[0]?.text.includes('<data name="standup" untrusted="true">') ? "standup" : "briefing"}` },
    }));
    s = await startServer({ env: modelEnv(model) });
    const { call } = await client(s, "operator", ["admin"]);
    s.clock.set(Date.parse("2026-11-23T08:00:30Z"));
    const standup = await runBuiltIn(s.deps, s.org, "standup", { mode: "morning", words: true });
    expect(standup.status).toBe("ok");
    const stored = (await call("/api/mcp/standup?mode=morning")).json;
    expect(stored.briefing).toBe("Worded: standup");
    expect(stored.agentStatuses).toHaveLength(17); // the structured parts are composed from data as before
    expect((await call("/api/agents/standup/runs")).json.runs[0]).toMatchObject({ tokensIn: 100, tokensOut: 20 });
    expect((await call("/api/mcp/briefing")).json.briefing).not.toContain("Worded"); // composed on demand, without the model
    await runBuiltIn(s.deps, s.org, "briefing", { words: true });
    expect((await call("/api/mcp/briefing")).json.briefing).toBe("Worded: briefing");

    model.script(() => ({ status: 500, error: { error: { message: "down" } } }));
    s.clock.advance(60_000);
    expect((await runBuiltIn(s.deps, s.org, "standup", { mode: "morning", words: true })).status).toBe("ok");
    const composed = (await call("/api/mcp/standup?mode=morning")).json.briefing;
    expect(composed).not.toContain("Worded");
    expect(composed.length).toBeGreaterThan(0);
    // Regenerations (no `words`) never call the model.
    const calls = model.requests.length;
    await runBuiltIn(s.deps, s.org, "standup", { mode: "morning" });
    expect(model.requests.length).toBe(calls);
  });
});
