/**
 * `node --import tsx scripts/bench-construction.ts`: what building the MCP server costs per request
 * (src/docs/notes/benchmark.md#building-the-server-per-request), the question before serving both
 * eras from one per-request SDK v2 factory. CPU time per construction, interleaved rounds, in one
 * process with no I/O (nothing is read at construction):
 *   - v2 factory: Crew's 2026-07-28 server of one request (`modernServerFactory`, what
 *     `createMcpHandler` calls for every request of that era today),
 *   - v1 server: the 2025 leg's `buildMcpServer` with the shared validator (built once per
 *     process today; per request it would cost this),
 *   - v1 server, own validator: the same with the SDK's default (a fresh Ajv per server).
 * Env: BENCH_ITERATIONS (per round, default 2000), BENCH_ROUNDS (default 5).
 */
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import { loadConfig } from "../src/config.ts";
import type { AppDeps } from "../src/deps.ts";
import type { Principal } from "../src/domain.ts";
import { systemClock } from "../src/lib/clock.ts";
import { silentLogger } from "../src/lib/log.ts";
import { modernAuthInfo, modernServerFactory } from "../src/mcp/modern.ts";
import { buildMcpServer } from "../src/mcp/server.ts";
import { buildToolCatalog } from "../src/mcp/tools.ts";
import { FULL_VIEW } from "../src/mcp/toolsets.ts";
import { operations } from "../src/operations/index.ts";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const config = loadConfig({ BASE_URL: "http://127.0.0.1:3000", DATABASE_URL: "file:unused.db", LOG_LEVEL: "silent" });
// Construction touches none of these; the record only has to be there.
const deps = { config, clock: systemClock, log: silentLogger, db: {}, events: {}, outbound: {} } as unknown as AppDeps;
const catalog = buildToolCatalog(operations, config.baseUrl);
const principal: Principal = {
  userId: "usr_bench",
  orgId: "org_bench",
  email: "bench@example.com",
  name: "Bench",
  plan: "operator",
  role: "owner",
  credential: { type: "api_key", id: "hash", scopes: ["admin"] },
};
const factory = modernServerFactory(deps, catalog);
const authInfo = modernAuthInfo({ principal, requestId: "req_bench", view: FULL_VIEW }, "crew_bench");
const session = () => ({ principal: async () => principal, requestId: () => "req_bench", protocolVersion: () => "2025-11-25" });

const scenarios: Record<string, () => unknown> = {
  "v2 factory (2026-07-28, per request today)": () => factory({ authInfo } as never),
  "v1 server, shared validator (2025, once per process today)": () => buildMcpServer(deps, catalog, session),
  "v1 bare Server, own Ajv": () => new V1Server({ name: "x", version: "1" }, { capabilities: { tools: {} } }),
};

const results = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, build] of Object.entries(scenarios)) {
    for (let i = 0; i < 50; i++) build(); // warm
    const start = process.cpuUsage();
    for (let i = 0; i < ITERATIONS; i++) build();
    const used = process.cpuUsage(start);
    results.set(name, [...(results.get(name) ?? []), (used.user + used.system) / ITERATIONS]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `Node ${process.version}, ${ROUNDS} interleaved rounds of ${ITERATIONS} constructions; CPU µs per construction (median, min–max)`,
);
console.log("| Construction | µs (median) | min–max |\n| --- | ---: | ---: |");
for (const [name, xs] of results) {
  console.log(`| ${name} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} |`);
}
