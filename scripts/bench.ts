/**
 * `npm run bench`: how fast authenticated requests are next to a bare Hono route.
 *
 * The server runs in a spawned Node process (this file with `--serve`), so the load generator
 * (autocannon, programmatic API, in this process) does not share the server's event loop. That
 * server is exactly what `npm start` builds (boot() → createApp, @hono/node-server) plus one bare
 * route, `GET /bare` → {ok:true}, on a separate Hono app dispatched before Crew's, so both are
 * served by the same runtime, HTTP layer and process in the same run.
 *
 * Scenarios, each after a warm-up and beside a fresh measure of the bare route: GET /gated (Crew's
 * request id and Bearer gate, i.e. key lookup and quota, before a constant answer), GET
 * /api/mcp/agents and POST /api/mcp/actions with an API key. The quota stays on (it is part of
 * what is measured) with a limit too high to reach.
 * Loopback only; bounded: about 50 s in all. Env: BENCH_SECONDS (per scenario, default 6),
 * BENCH_CONNECTIONS (default 10), BENCH_CPU_PROF=<dir> (server writes a .cpuprofile there),
 * BENCH_ONLY=gated|agents|actions (that scenario alone, no bare route: for profiling one path).
 * Spawning, measuring and the table: scripts/bench-lib.ts (shared with scripts/bench-mcp.ts).
 */
import { Hono } from "hono";
import { protect } from "../src/auth/protect.ts";
import { boot } from "../src/boot.ts";
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
  const bare = new Hono();
  bare.get("/bare", (c) => c.json({ ok: true }));
  bench.serve(booted, (req) => {
    if (req.url.endsWith("/bare")) return bare.fetch(req);
    return req.url.endsWith("/gated") ? gated.fetch(req) : booted.app.fetch(req);
  });
}

interface Scenario {
  name: string;
  path: string;
  method?: "GET" | "POST";
  body?: string;
  auth?: boolean;
}

function measureScenario(server: bench.BenchServer, s: Scenario): Promise<bench.Measured> {
  const headers: Record<string, string> = {};
  if (s.auth) headers.authorization = `Bearer ${server.key}`;
  if (s.body) headers["content-type"] = "application/json";
  return bench.measure(s.name, { url: server.url + s.path, method: s.method ?? "GET", body: s.body, headers }, SECONDS);
}

async function runBench(server: bench.BenchServer): Promise<void> {
  console.log(`Node ${process.version}, server in a spawned process, ${bench.loadSummary(SECONDS)}`);
  const only = process.env.BENCH_ONLY;
  const action = JSON.stringify({ title: "Follow up with Acme", priority: "high" });
  const rows: Array<bench.Measured & { ratio?: number }> = [];
  for (const [authed, s] of [
    ["GET /gated: Bearer gate only (API key)", { path: "/gated", auth: true }],
    ["GET /api/mcp/agents (API key)", { path: "/api/mcp/agents", auth: true }],
    ["POST /api/mcp/actions (API key)", { path: "/api/mcp/actions", method: "POST", body: action, auth: true }],
  ] as const) {
    if (only && !s.path.endsWith(only)) continue;
    if (only) {
      rows.push(await measureScenario(server, { name: authed, ...s }));
      continue;
    }
    const bare = await measureScenario(server, { name: "GET /bare", path: "/bare" });
    const real = await measureScenario(server, { name: authed, ...s });
    rows.push(bare, { ...real, ratio: real.rps / bare.rps });
  }
  bench.printTable(rows, [{ heading: "vs bare", cell: (r) => (r.ratio === undefined ? "" : r.ratio.toFixed(2)) }]);
  bench.reportFailures(rows);
}

if (process.argv.includes("--serve")) {
  await runServer();
} else {
  const profileDir = process.env.BENCH_CPU_PROF;
  await bench.withServer("scripts/bench.ts", runBench, profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []);
}
