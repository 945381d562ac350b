/**
 * What the model is told (src/docs/notes/model.md), against a scripted OpenAI-compatible model server on loopback
 * (a real model is outside this machine's reach): the answer's JSON Schema as `response_format`
 * json_schema and in words in the prompt; one JSON-mode retry, remembered, for a server that
 * refuses json_schema; a differently shaped answer is an error run, never an empty "ok"; the
 * connection test passes on any answer. Also: one organization's slow model queues only its own
 * runs, and an endpoint refused by the outbound policy reads like an unreachable one.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ModelRunDeps, runModelAgent } from "../../src/agents/model-run.ts";
import { resolveModel, saveModel, testModel } from "../../src/integrations/model/settings.ts";
import { createLogger } from "../../src/lib/log.ts";
import { createOrg } from "../../src/store/orgs/orgs.ts";
import { rows } from "../helpers/agents.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { fakeSources, modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  s = undefined;
  model = undefined;
});

async function setup() {
  model = await startScriptedModel();
  s = await startServer({ env: modelEnv(model) });
  const logLines: string[] = [];
  const deps: ModelRunDeps = { ...s.deps, log: createLogger("debug", (l) => logLines.push(l)), sources: fakeSources() };
  return { model, s, deps, logLines };
}

describe("the answer's schema (scripted OpenAI-compatible model server)", () => {
  it("sends response_format json_schema with the agent's strict schema, and names the fields and allowed values in the prompt", async () => {
    const { model, s, deps } = await setup();
    expect((await runModelAgent(deps, s.org, "sales")).status).toBe("ok");
    const body = model.requests[0]?.body;
    expect(body.response_format.type).toBe("json_schema");
    const schema = body.response_format.json_schema.schema;
    expect(schema.required).toEqual(["summary"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["summary", "suggestions", "actions", "handoffs", "pipeline"]));
    expect(schema.properties.handoffs.items.properties.to.enum).toContain("bdr");
    const system = model.requests[0]?.system ?? "";
    expect(system).toContain('- "summary" (required): string (not empty, at most 500 characters)');
    expect(system).toContain('- "priority" (required): one of "critical", "high", "medium", "low"');
    expect(system).toMatch(/- "to" \(required\): one of .*"bdr"/);
    expect(system).not.toMatch(/- "to" \(required\): one of .*"sales"/); // not to itself
  });

  it("retries once in JSON mode when the server refuses json_schema, and remembers it for the connection", async () => {
    const { model, s, deps } = await setup();
    model.script((r) =>
      r.body.response_format?.type === "json_schema"
        ? { status: 400, error: { error: { message: "response_format json_schema is not supported" } } }
        : { object: { summary: "Answered in JSON mode" } },
    );
    expect(await runModelAgent(deps, s.org, "growth")).toMatchObject({ status: "ok", summary: "Stored nothing new." });
    expect(model.requests.map((r) => r.body.response_format.type)).toEqual(["json_schema", "json_object"]);
    expect(model.requests[1]?.system).toContain('- "summary" (required)');
    expect((await runModelAgent(deps, s.org, "finance")).status).toBe("ok");
    expect(model.requests.map((r) => r.body.response_format.type)).toEqual(["json_schema", "json_object", "json_object"]);
  });

  it("treats an answer with other field names as invalid: one retry with the issues, then an error run that stores nothing", async () => {
    const { model, s, deps } = await setup();
    model.script(() => ({ object: { summary: "Looked at it", recommendations: [{ title: "Raise prices" }], action_items: [] } }));
    const run = await runModelAgent(deps, s.org, "growth");
    expect(run.status).toBe("error");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages.at(-1)?.text).toContain("recommendations");
    expect(await rows(s.db, "SELECT count(*) AS n FROM suggestions WHERE agent_id = 'growth'")).toEqual([{ n: 0 }]);
    expect(await rows(s.db, "SELECT status FROM agent_runs WHERE id = ?", [run.runId])).toEqual([{ status: "error" }]);
  });
});

describe("crew model test (scripted OpenAI-compatible model server)", () => {
  it("passes against a server that answers a plain pong, and says whether structured output works", async () => {
    model = await startScriptedModel(() => ({ text: "pong" }));
    s = await startServer();
    const env = { DATABASE_URL: s.config.databaseUrl, CREW_SECRET: "test-secret-test-secret-test-secret-00", LOG_LEVEL: "silent" };
    const plain = await runCliInProcess(["model", "test"], { ...env, ...modelEnv(model) });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('answered "pong"');
    expect(plain.stdout).toContain("Structured output does not work: it answered, but not with the JSON asked for: pong");

    model.script((r) =>
      r.body.response_format?.type === "json_schema"
        ? { status: 400, error: { error: { message: "unsupported response_format" } } }
        : r.body.response_format
          ? { object: { answer: "pong" } }
          : { text: "Pong!" },
    );
    const json = await runCliInProcess(["model", "test"], { ...env, ...modelEnv(model), CREW_MODEL: "json-only-model" });
    expect(json.code).toBe(0);
    expect(json.stdout).toContain('answered "Pong!"');
    expect(json.stdout).toContain("Structured output works in JSON mode");
  });
});

describe("model-call slots per organization (scripted model server)", () => {
  it("queues one organization's runs behind its own slow model, not another organization's", async () => {
    const { model, s, deps } = await setup();
    const other = await createOrg(s.db, "Second", "UTC", s.clock.now());
    const held: (() => void)[] = [];
    model.script((r) =>
      r.messages[0]?.text.includes("Organization: Second.")
        ? { object: { summary: "Second org is fast" } }
        : new Promise((resolve) => held.push(() => resolve({ object: { summary: "slow" } }))),
    );
    const slow = Promise.all(["growth", "product", "finance"].map((id) => runModelAgent(deps, s.org, id)));
    await vi.waitFor(() => expect(held).toHaveLength(1));
    // The first organization holds one slot and queues the rest of its own; the second runs at once.
    expect(await runModelAgent(deps, other, "growth")).toMatchObject({ status: "ok", summary: "Stored nothing new." });
    expect(held).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(() => expect(held.length).toBeGreaterThan(0));
      held.shift()?.();
    }
    expect((await slow).map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(model.maxInFlight()).toBe(2);
  });
});

describe("outbound errors of the model (scripted model server)", () => {
  it("words a refused address and an unreachable one the same; the log says which", async () => {
    model = await startScriptedModel();
    const closed = await startScriptedModel();
    const closedUrl = closed.baseUrl;
    await closed.close();
    s = await startServer({ env: { ALLOW_PRIVATE_TARGETS: "false", WEBHOOK_ALLOW_PRIVATE: "false" } });
    const logLines: string[] = [];
    const log = createLogger("debug", (l) => logLines.push(l));
    // Refused: a loopback address saved earlier (saving one now is refused: test/agents/model-settings.test.ts), which the outbound policy refuses.
    await saveModel(s.deps, s.org.id, { kind: "cli" }, { provider: "openai-compatible", baseUrl: model.baseUrl, model: "m" });
    const refused: ModelRunDeps = { ...s.deps, log, sources: fakeSources() };
    // Unreachable: the operator's (trusted) address, where nothing listens any more.
    const environment = { provider: "openai-compatible" as const, baseUrl: closedUrl, model: "m", apiKey: null, dailyTokens: null };
    const unreachable: ModelRunDeps = { ...refused, config: { ...s.deps.config, model: environment } };
    const errors: string[][] = [];
    for (const [deps, baseUrl] of [
      [refused, model.baseUrl],
      [unreachable, closedUrl],
    ] as const) {
      const run = await runModelAgent(deps, s.org, "growth");
      const test = await testModel(await resolveModel(deps, s.org.id), log);
      const origin = new URL(baseUrl).origin;
      errors.push([run.summary.replace(origin, "ORIGIN"), test.ok ? "ok" : test.error.replace(origin, "ORIGIN")]);
    }
    expect(model.requests).toHaveLength(0);
    expect(errors[0]).toEqual(errors[1]);
    expect(errors[0]?.[1]).toBe("The model endpoint at ORIGIN could not be reached: check the base URL and that the server is running.");
    for (const e of errors.flat()) expect(e).not.toMatch(/public address|resolves to|ECONNREFUSED|refused:/);
    const logged = logLines.join("\n");
    expect(logged).toContain("OutboundRefused");
    expect(logged).toContain("ECONNREFUSED");
  });
});
