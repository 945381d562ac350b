/**
 * OpenTelemetry traces (src/docs/notes/tracing.md), exported over OTLP/HTTP (JSON) to a receiver
 * on loopback: a request carrying a W3C `traceparent` continues that trace through its server
 * span (named by route pattern), its operation and its database statements; the access log line
 * names the trace id; a webhook delivery carries a `traceparent`; no span holds a value of the
 * request (the action's title, its id in a path). Nothing is traced in a process without OTEL_*.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/lib/log.ts";
import { tracingEnabled } from "../../src/lib/tracing.ts";
import { startTracing, tracingWanted } from "../../src/lib/tracing-sdk.ts";
import { deliverDue } from "../../src/webhooks/deliver.ts";
import { type Call, client } from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
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

beforeAll(async () => {
  // What a server gets without OTEL_*: no tracing at all.
  expect(tracingWanted({})).toBe(false);
  expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
  expect(tracingEnabled()).toBe(false);

  otlp = await startReceiver();
  hooks = await startReceiver();
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "50",
  });
  tracing = await startTracing(process.env);
  s = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "true" }, log: createLogger("info", (line) => lines.push(line)) });
  ({ key, call } = await client(s, "operator", ["admin"]));
});

afterAll(async () => {
  await s?.close();
  await tracing?.stop();
  await otlp?.close();
  await hooks?.close();
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
});
