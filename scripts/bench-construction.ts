/**
 * `node --import tsx scripts/bench-construction.ts`: what building the MCP server costs per request
 * (src/docs/notes/benchmark.md#building-the-server-per-request), the question before serving both
 * eras from one per-request SDK v2 factory. CPU time per construction, interleaved rounds, in one
 * process with no I/O (nothing is read at construction):
 *   - the one factory (`mcpServerFactory`, what both eras' entries call for every request), for
 *     a 2026-07-28 request and for a 2025-era one,
 *   - a bare SDK v1 `Server` with its own validator (the SDK's default: a fresh Ajv per server),
 *     what the 2025 leg once shared one server to avoid.
 * Env: BENCH_ITERATIONS (per round, default 2000), BENCH_ROUNDS (default 5).
 */
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import { loadConfig } from "../src/config.ts";
import type { AppDeps } from "../src/deps.ts";
import type { Principal } from "../src/domain.ts";
import { systemClock } from "../src/lib/clock.ts";
import { silentLogger } from "../src/lib/log.ts";
import { callerAuthInfo, httpCallerOf } from "../src/mcp/http-serving.ts";
import { mcpServerFactory } from "../src/mcp/server.ts";
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
const factory = mcpServerFactory(deps, catalog, { callerOf: httpCallerOf });
const caller = {
  principal: async () => principal,
  requestId: () => "req_bench",
  view: FULL_VIEW,
  protocolVersion: "2025-11-25",
  cancelKey: "k",
};
const authInfo = callerAuthInfo(caller, "hash", "crew_bench");

const scenarios: Record<string, () => unknown> = {
  "one factory, 2026-07-28 request": () => factory({ era: "modern", authInfo }),
  "one factory, 2025-era request": () => factory({ era: "legacy", authInfo }),
  "v1 bare Server, own Ajv": () => new V1Server({ name: "x", version: "1" }, { capabilities: { tools: {} } }),
};

const results = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, build] of Object.entries(scenarios)) {
    // Awaited one by one: the factory is async (it reads the caller), and its microtasks count too.
    for (let i = 0; i < 50; i++) await build(); // warm
    const start = process.cpuUsage();
    for (let i = 0; i < ITERATIONS; i++) await build();
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
