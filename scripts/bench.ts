/**
 * `npm run bench`: how fast authenticated requests are next to a bare Hono route.
 *
 * The server runs in a spawned Node process (this file with `--serve`), so the load generator
 * (autocannon, programmatic API, in this process) does not share the server's event loop. That
 * server is exactly what `npm start` builds (boot() → createApp, @hono/node-server) plus one bare
 * route, `GET /bare`, on a separate Hono app dispatched before Crew's, so both are
 * served by the same runtime, HTTP layer and process in the same run.
 *
 * Scenarios, each after a warm-up, in interleaved rounds (BENCH_ROUNDS, default 3; medians): the
 * bare route answering the same JSON as GET /api/mcp/agents, GET /gated (Crew's request id and
 * Bearer gate, i.e. key lookup and quota, before a constant answer), GET /api/mcp/agents and POST
 * /api/mcp/actions with an API key. Then scripts/bench-mcp.ts runs (MCP against its peers); with
 * `--scale N [--engine postgres]`, scripts/bench-scale.ts runs instead (Crew filled to N actions; with
 * PostgreSQL, SQLite and PostgreSQL side by side and two processes against one). The quota stays on
 * (it is part of what is measured) with a limit too high to reach.
 * Loopback only; bounded: about 4 × 8 s × BENCH_ROUNDS. Env: BENCH_SECONDS (per scenario, default 6),
 * BENCH_CONNECTIONS (default 10), BENCH_CPU_PROF=<dir> (server writes a .cpuprofile there),
 * BENCH_ONLY=gated|agents|actions (that scenario alone, no bare route: for profiling one path).
 * Spawning, measuring and the table: scripts/bench-lib.ts (shared with scripts/bench-mcp.ts).
 */
import { spawn } from "node:child_process";
import { Hono } from "hono";
import { protect } from "../src/auth/protect.ts";
import { boot } from "../src/boot-app.ts";
import type { AppEnv } from "../src/deps.ts";
import { renderError, requestId } from "../src/http/middleware.ts";
import { silentLogger } from "../src/lib/log.ts";
import * as bench from "./bench-lib.ts";

const SECONDS = bench.secondsPerScenario(6);

/** Server mode: Crew as `npm start` builds it, with GET /bare and GET /gated beside it. */
async function runServer(): Promise<void> {
  const booted = await boot(process.env, { log: silentLogger });
  // Crew's request-id and Bearer gate (credential + quota) in front of a constant answer: the cost
  // of authenticating a request, apart from what an endpoint then reads.
  const gated = new Hono<AppEnv>();
  gated.use("*", requestId(booted.deps.clock.now));
  gated.onError((error, c) => renderError(booted.deps, error, c));
  gated.get("/gated", protect(booted.deps), (c) => c.json({ ok: true }));
  // The bare route answers the same JSON as GET /api/mcp/agents (the parent sets it once, below),
  // so the comparison is of everything but the payload.
  let payload: unknown = { ok: true };
  const bare = new Hono();
  bare.get("/bare", (c) => c.json(payload));
  bare.post("/bench-payload", async (c) => {
    payload = await c.req.json();
    return c.body(null, 204);
  });
  bench.serve(booted, (req) => {
    if (req.url.endsWith("/bare") || req.url.endsWith("/bench-payload")) return bare.fetch(req);
    return req.url.endsWith("/gated") ? gated.fetch(req) : booted.app.fetch(req);
  });
}

interface Scenario {
  path: string;
  method?: "GET" | "POST";
  body?: string;
  auth?: boolean;
}

function scenarioOptions(server: bench.BenchServer, s: Scenario) {
  const headers: Record<string, string> = {};
  if (s.auth) headers.authorization = `Bearer ${server.key}`;
  if (s.body) headers["content-type"] = "application/json";
  return { url: server.url + s.path, method: s.method ?? "GET", body: s.body, headers };
}

async function runBench(server: bench.BenchServer): Promise<void> {
  console.log(`Node ${process.version}, server in a spawned process, ${bench.loadSummary(SECONDS)}, ${bench.ROUNDS} interleaved rounds`);
  const dashboard = await fetch(`${server.url}/api/mcp/agents`, { headers: { authorization: `Bearer ${server.key}` } });
  const payload = await dashboard.text();
  await fetch(`${server.url}/bench-payload`, { method: "POST", headers: { "content-type": "application/json" }, body: payload });
  console.log(`Bare route and GET /api/mcp/agents answer the same ${payload.length} bytes of JSON.`);
  const only = process.env.BENCH_ONLY;
  const action = JSON.stringify({ title: "Follow up with Acme", priority: "high" });
  const scenarios: Array<{ name: string } & Scenario> = [
    { name: "GET /bare: same JSON as the dashboard, no auth", path: "/bare" },
    { name: "GET /gated: Bearer gate only (API key)", path: "/gated", auth: true },
    { name: "GET /api/mcp/agents (API key)", path: "/api/mcp/agents", auth: true },
    { name: "POST /api/mcp/actions (API key)", path: "/api/mcp/actions", method: "POST" as const, body: action, auth: true },
  ].filter((s) => !only || s.path.endsWith(only));
  const rows = await bench.interleaved(
    scenarios.map((s) => ({ name: s.name, options: scenarioOptions(server, s) })),
    SECONDS,
  );
  const bareRow = rows.find((r) => r.name.startsWith("GET /bare"));
  bench.printTable(rows, [{ heading: "vs bare", cell: (r) => (bareRow && r !== bareRow ? (r.rps / bareRow.rps).toFixed(2) : "") }]);
  bench.reportFailures(rows);
}

/** The other parts of `npm run bench`, each its own process: MCP (always), scale (with --scale N, instead). */
function runPart(script: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: "inherit" });
    child.once("exit", (code) => resolve(code ?? 1));
  });
}

if (process.argv.includes("--serve")) {
  await runServer();
} else if (process.argv.includes("--scale")) {
  process.exitCode = await runPart("scripts/bench-scale.ts", process.argv.slice(2));
} else {
  const profileDir = process.env.BENCH_CPU_PROF;
  await bench.withServer("scripts/bench.ts", runBench, { nodeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [] });
  if (!process.env.BENCH_ONLY) {
    const code = await runPart("scripts/bench-mcp.ts", []);
    if (code !== 0) process.exitCode = code;
  }
}
