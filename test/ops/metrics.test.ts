/**
 * GET /metrics (Prometheus text format): off unless METRICS_TOKEN, 401 without it, and content
 * whose labels are route patterns and closed sets — no user id, email, token or raw path anywhere.
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { tick } from "../../src/agents/scheduler.ts";
import { newId } from "../../src/lib/random.ts";
import { ROOT } from "../helpers/cli.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const TOKEN = "metrics-token-0123456789abcdef";
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
const serve = async (env: Record<string, string> = {}) => {
  const s = await startServer({ env });
  servers.push(s);
  return s;
};

describe("GET /metrics", () => {
  it("is off (404) without METRICS_TOKEN", async () => {
    const s = await serve();
    expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
  });

  it("answers 401 without the token, or with another one", async () => {
    const s = await serve({ METRICS_TOKEN: TOKEN });
    const none = await fetch(`${s.url}/metrics`);
    expect(none.status).toBe(401);
    expect((await none.json()).error).toBe("unauthorized");
    const wrong = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
  });

  it("labels requests by route pattern; runs, tokens, quota refusals, leadership, process metrics; no id, email, token or path", async () => {
    const s = await serve({ METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_HOUR: "2" });
    const email = "metrics-person@example.com";
    const user = await s.createUser("operator", email);
    const key = await s.createKey(user, ["read", "admin"]);
    const auth = { Authorization: `Bearer ${key}` };
    const actionId = newId("act", Date.now());
    expect((await fetch(`${s.url}/api/mcp/actions/${actionId}`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${s.url}/api/mcp/actions`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${s.url}/api/mcp/actions`, { headers: auth })).status).toBe(429);
    expect((await fetch(`${s.url}/no/such/${user.id}`)).status).toBe(404);
    await runBuiltIn(s.deps, s.org, "pulse");
    expect((await tick(s.deps, "metrics-test-holder")).leader).toBe(true);

    const res = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('crew_http_requests_total{method="GET",route="/api/mcp/actions/:id",status="404"} 1');
    expect(text).toContain('crew_http_requests_total{method="GET",route="/api/mcp/actions",status="429"} 1');
    expect(text).toContain('crew_http_requests_total{method="GET",route="(no route)",status="404"} 1');
    expect(text).toMatch(/crew_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/mcp\/actions"\}/);
    expect(text).toContain('crew_agent_runs_total{agent="pulse",status="ok",runner="built-in"} 1');
    expect(text).toContain('crew_model_tokens_total{direction="input"} 0');
    expect(text).toContain('crew_outbox_pending{kind="webhook"} 0');
    expect(text).toContain("crew_quota_refusals_total 1");
    expect(text).toContain("crew_scheduler_leader 1");
    expect(text).toContain("process_cpu_user_seconds_total");
    for (const secret of [user.id, email, key, TOKEN, actionId, s.org.id, "/no/such"]) expect(text).not.toContain(secret);
  });
});

describe("the Grafana dashboard of the docs", () => {
  it("queries only metrics that GET /metrics serves", async () => {
    const dashboard = JSON.parse(readFileSync(`${ROOT}src/docs/notes/grafana-dashboard.json`, "utf8"));
    const names = new Set<string>();
    for (const panel of dashboard.panels)
      for (const t of panel.targets) for (const m of t.expr.matchAll(/\b(crew_[a-z_]+|process_[a-z_]+)/g)) names.add(m[1]);
    expect(names.size).toBeGreaterThanOrEqual(8);
    const s = await serve({ METRICS_TOKEN: TOKEN });
    const text = await (await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    for (const name of names) expect(text, name).toMatch(new RegExp(`^# TYPE ${name.replace(/_bucket$/, "")} `, "m"));
  });
});
