/**
 * OpenTelemetry traces (src/docs/notes/tracing.md), exported over OTLP/HTTP (JSON) to a receiver
 * on loopback: a request carrying a W3C `traceparent` continues that trace through its server
 * span (named by route pattern), its operation and its database statements; the access log line
 * names the trace id; a webhook delivery carries a `traceparent`; no span holds a value of the
 * request (the action's title, its id in a path). Nothing is traced in a process without OTEL_*.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agents/run-agent.ts";
import { createLogger } from "../../src/lib/log.ts";
import { tracingEnabled } from "../../src/lib/tracing.ts";
import { startTracing, tracingWanted } from "../../src/lib/tracing-sdk.ts";
import { deliverDue } from "../../src/webhooks/deliver.ts";
import { databaseFileWithKey } from "../helpers/cli.ts";
import { mcpPost } from "../helpers/mcp.ts";
import { type Call, client } from "../helpers/rest.ts";
import { fakeSources, modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { spawnServer } from "../helpers/spawn.ts";
import { type Receiver, startReceiver, subscribe } from "../helpers/webhooks.ts";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN = "00f067aa0ba902b7";
const TITLE = "Call the secret supplier Zanzibar";

let otlp: Receiver;
let hooks: Receiver;
let model: ScriptedModel;
let tracing: { stop(): Promise<void> } | null;
let s: TestServer;
let call: Call;
let key: string;
const lines: string[] = [];

const spans = (): OtlpSpan[] =>
  otlp.hits.flatMap((hit) =>
    (hit.json?.resourceSpans ?? []).flatMap((r: any) => (r.scopeSpans ?? []).flatMap((scope: any) => scope.spans as OtlpSpan[])),
  );
const attribute = (span: OtlpSpan, name: string) => {
  const value = span.attributes?.find((a) => a.key === name)?.value;
  return value ? Object.values(value)[0] : undefined;
};
async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `no ${what} within 10 s; spans: ${spans()
      .map((x) => x.name)
      .join(", ")}`,
  );
}

/** What this file and startTracing put into the environment (startTracing's defaults among them). */
const OTEL_SET = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_BSP_SCHEDULE_DELAY",
  "OTEL_METRICS_EXPORTER",
  "OTEL_LOGS_EXPORTER",
  "OTEL_SERVICE_NAME",
];
const envBefore = Object.fromEntries(OTEL_SET.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  // What a server gets without OTEL_*: no tracing at all.
  expect(tracingWanted({})).toBe(false);
  expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
  expect(tracingEnabled()).toBe(false);

  otlp = await startReceiver();
  hooks = await startReceiver();
  model = await startScriptedModel();
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "50",
  });
  tracing = await startTracing(process.env);
  s = await startServer({
    env: { ...modelEnv(model), WEBHOOK_ALLOW_PRIVATE: "true" },
    log: createLogger("info", (line) => lines.push(line)),
  });
  ({ key, call } = await client(s, "operator", ["admin"]));
});

afterAll(async () => {
  await s?.close();
  await tracing?.stop();
  // Test files share a worker (src/docs/notes/testing.md#one-worker-many-files): a server another
  // file spawns later must not inherit an exporter aimed at this file's closed receiver.
  for (const name of OTEL_SET) {
    if (envBefore[name] === undefined) delete process.env[name];
    else process.env[name] = envBefore[name];
  }
  expect(tracingEnabled()).toBe(false);
  await otlp?.close();
  await hooks?.close();
  await model?.close();
});

describe("traces over OTLP/HTTP", () => {
  it("continues an incoming traceparent through the request, its operation and its statements, by route pattern and without values", async () => {
    expect(tracingEnabled()).toBe(true);
    await subscribe(call, hooks.url);
    const added = await api(s.url, key)("/api/mcp/actions", {
      body: { title: TITLE },
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
    });
    expect(added.status).toBe(200);
    const actionId = added.json.actionId as string;
    await api(s.url, key)(`/api/mcp/actions/${actionId}`, { method: "PATCH", body: { status: "done" } });

    const server = await until(() => spans().find((x) => x.traceId === TRACE_ID && x.kind === 2), "server span of the traced request");
    expect(server.name).toBe("POST /api/mcp/actions");
    expect(server.parentSpanId).toBe(PARENT_SPAN);
    expect(attribute(server, "http.route")).toBe("/api/mcp/actions");
    expect(Number(attribute(server, "http.response.status_code"))).toBe(200);

    const inTrace = () => spans().filter((x) => x.traceId === TRACE_ID);
    const operation = await until(() => inTrace().find((x) => x.name === "operation addActions"), "operation span");
    expect(attribute(operation, "crew.via")).toBe("rest");
    const statement = await until(() => inTrace().find((x) => attribute(x, "db.operation.name") === "INSERT"), "database span");
    expect(attribute(statement, "db.system.name")).toBe(process.env.CREW_TEST_ENGINE === "postgres" ? "postgresql" : "sqlite");

    // The PATCH's span is named by its pattern, not its path.
    const patched = await until(() => spans().find((x) => x.name.startsWith("PATCH ")), "PATCH span");
    expect(patched.name).toBe("PATCH /api/mcp/actions/:id");

    // The access log line of the traced request names its trace.
    const logged = lines
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "request" && l.method === "POST" && l.route === "/api/mcp/actions");
    expect(logged?.trace_id).toBe(TRACE_ID);

    // A webhook carries the trace of its delivery.
    expect(await deliverDue(s.deps)).toMatchObject({ delivered: 1 });
    expect(hooks.hits[0]?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    await until(() => spans().find((x) => x.kind === 3 && attribute(x, "server.address") === new URL(hooks.url).host), "outbound span");

    // No value of the request in any span: not the title, not the action's id.
    const exported = otlp.hits.map((h) => h.body).join("\n");
    expect(exported).not.toContain(TITLE);
    expect(exported).not.toContain(actionId);
    expect(exported).not.toContain(key);
  });

  it("traces an agent run and its model call (agent, trigger, outcome, model, tokens) and carries the trace to the model, never the prompt", async () => {
    model.script(() => ({ object: { summary: "research: nothing new today" }, tokensIn: 123, tokensOut: 45 }));
    const run = await runAgent({ ...s.deps, sources: fakeSources() }, s.org.id, "research", { kind: "now" });
    expect(run?.status).toBe("ok");
    const agent = await until(() => spans().find((x) => x.name === "agent run research"), "agent run span");
    expect(attribute(agent, "crew.run.trigger")).toBe("now");
    expect(attribute(agent, "crew.run.outcome")).toBe("ok");
    const call = await until(() => spans().find((x) => x.name === "model scripted-model"), "model call span");
    expect(call.traceId).toBe(agent.traceId);
    expect(attribute(call, "gen_ai.request.model")).toBe("scripted-model");
    expect(Number(attribute(call, "gen_ai.usage.input_tokens"))).toBe(123);
    expect(Number(attribute(call, "gen_ai.usage.output_tokens"))).toBe(45);
    // The provider's request carried the trace.
    expect(model.requests.at(-1)?.headers.traceparent).toContain(agent.traceId);
    // Neither the prompt nor the answer was exported.
    const exported = otlp.hits.map((h) => h.body).join("\n");
    const prompt = model.requests.at(-1)?.system ?? "";
    expect(prompt.length).toBeGreaterThan(100);
    expect(exported).not.toContain(prompt.slice(0, 60));
    expect(exported).not.toContain("nothing new today");
  });

  it("an MCP tools/call carrying a traceparent in _meta continues that trace in its tool and operation spans", async () => {
    const MCP_TRACE = "0af7651916cd43dd8448eb211c80319c";
    const res = await mcpPost(
      s.url,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "crew_add_action", arguments: { title: TITLE }, _meta: { traceparent: `00-${MCP_TRACE}-b7ad6b7169203331-01` } },
      },
      { Authorization: `Bearer ${key}` },
    );
    expect(res.json.result.isError).toBeFalsy();
    const tool = await until(() => spans().find((x) => x.traceId === MCP_TRACE && x.name === "tool crew_add_action"), "tool span");
    expect(tool.parentSpanId).toBe("b7ad6b7169203331");
    await until(() => spans().find((x) => x.traceId === MCP_TRACE && x.name === "operation addActions"), "operation span under the tool");
  });

  it("a server process started with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf sends protobuf to OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const proto = await startReceiver();
    const database = await databaseFileWithKey("otel");
    const traced = await spawnServer({
      ...database.env,
      CREW_SECRET: "tracing-test-secret-tracing-test-secret",
      OTEL_EXPORTER_OTLP_ENDPOINT: proto.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    try {
      const res = await fetch(`${traced.url}/api/mcp/agents`, { headers: { Authorization: `Bearer ${database.key}` } });
      expect(res.status).toBe(200);
      // The route pattern is in the protobuf body as a string.
      await until(() => (proto.hits.some((h) => h.body.includes("/api/mcp/agents")) ? true : undefined), "the request's span in protobuf");
      expect(new Set(proto.hits.map((h) => h.headers["content-type"]))).toEqual(new Set(["application/x-protobuf"]));
    } finally {
      await traced.stop();
      await proto.close();
      database.cleanup();
    }
  }, 60_000);
});
