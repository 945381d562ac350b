/**
 * `npm run bench` (second part): Crew's MCP endpoint next to its MCP peers and its own REST.
 *
 * One spawned server process (this file with `--serve`: Crew as `npm start` builds it, plus the
 * peers of scripts/bench-peers.ts on /peer/sdk and /peer/tmcp). The peers' one tool returns the
 * very JSON Crew's crew_agent_status returns (the parent reads it from Crew and hands it over), with
 * no auth and no database; Crew's call does auth, quota, plan ∩ scope, validation and the read.
 * Scenarios in interleaved rounds (BENCH_ROUNDS, default 3; medians), loopback, autocannon here:
 *   - the SDK's documented stateless server (new Server + transport per request),
 *   - tmcp (one server for the process, the fastest TypeScript MCP server measured),
 *   - Crew: `tools/call crew_agent_status` through /mcp with an API key, at 2025-11-25 and 2026-07-28,
 *   - Crew REST: the same data from `GET /api/mcp/agents` with the same key.
 * FastMCP is not included: it runs its own HTTP server, so its CPU would not be measured alike.
 * Env: BENCH_SECONDS (per scenario, default 5), BENCH_CONNECTIONS (default 10), BENCH_ROUNDS,
 * BENCH_CPU_PROF=<dir> (the server writes a .cpuprofile there), BENCH_ONLY=<text> (only the
 * scenarios whose name contains it: for profiling one path; `listen`: only the idle-subscription
 * memory figure, scripts/bench-listen.ts), BENCH_CALLS (default 100000; 0 skips): after the
 * table, that many `tools/call` of each era in a row, with the server's RSS and heap (after GC)
 * before and after each, so growth per call shows.
 */
import autocannon from "autocannon";
import { boot } from "../src/boot-app.ts";
import { silentLogger } from "../src/lib/log.ts";
import * as bench from "./bench-lib.ts";
import { measureIdleSubscriptions, readMemory } from "./bench-listen.ts";
import { sdkPeer, tmcpPeer } from "./bench-peers.ts";

const SECONDS = bench.secondsPerScenario(5);

async function runServer(): Promise<void> {
  const booted = await boot(process.env, { log: silentLogger });
  let payload: Record<string, unknown> = { ok: true };
  const sdk = sdkPeer(() => payload);
  const tmcp = tmcpPeer(() => payload, "/peer/tmcp");
  bench.serve(booted, async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/peer/sdk") return sdk(req);
    if (path === "/peer/tmcp") return tmcp(req);
    if (path === "/bench-memory") return readMemory();
    if (path === "/bench-payload") {
      payload = (await req.json()) as Record<string, unknown>;
      return new Response(null, { status: 204 });
    }
    return booted.app.fetch(req);
  });
}

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};
const callTool = (name: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });

/** The same call at 2026-07-28: the per-request envelope in `_meta`, and the headers mirroring the body. */
const MODERN_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "crew_agent_status",
};
const MODERN_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "crew_agent_status",
    arguments: {},
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});

async function runBench(server: bench.BenchServer): Promise<void> {
  const { url, key } = server;
  console.log(`\nMCP bench: Node ${process.version}, ${bench.loadSummary(SECONDS)}, ${bench.ROUNDS} interleaved rounds`);
  const auth = { authorization: `Bearer ${key}` };
  const own = await fetch(`${url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, ...auth }, body: callTool("crew_agent_status") });
  const structured = ((await own.json()) as { result: { structuredContent: unknown } }).result.structuredContent;
  await fetch(`${url}/bench-payload`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(structured),
  });
  console.log(`Every MCP server below returns the same ${JSON.stringify(structured).length} bytes of structuredContent (and it as text).`);

  const only = process.env.BENCH_ONLY;
  const scenarios: { name: string; options: autocannon.Options }[] = [
    {
      name: "SDK documented stateless server (constant)",
      options: { url: `${url}/peer/sdk`, method: "POST", headers: MCP_HEADERS, body: callTool("agent_status") },
    },
    {
      name: "tmcp + @tmcp/transport-http (constant)",
      options: { url: `${url}/peer/tmcp`, method: "POST", headers: MCP_HEADERS, body: callTool("agent_status") },
    },
    {
      name: "Crew MCP tools/call crew_agent_status (API key)",
      options: { url: `${url}/mcp`, method: "POST", headers: { ...MCP_HEADERS, ...auth }, body: callTool("crew_agent_status") },
    },
    {
      name: "Crew MCP 2026-07-28 tools/call crew_agent_status (API key)",
      options: { url: `${url}/mcp`, method: "POST", headers: { ...MODERN_HEADERS, ...auth }, body: MODERN_CALL },
    },
    { name: "Crew GET /api/mcp/agents (API key)", options: { url: `${url}/api/mcp/agents`, headers: auth } },
  ];
  const measured = await bench.interleaved(
    scenarios.filter((s) => !only || s.name.includes(only)),
    SECONDS,
  );
  const row = (i: number) => measured.find((m) => m.name === scenarios[i]?.name);
  const [sdk, tmcp, mcp, modern, rest] = [0, 1, 2, 3, 4].map(row);
  const rows = measured;
  bench.printTable(rows);
  const ratio = (a?: bench.Measured, b?: bench.Measured) =>
    a && b
      ? `${(a.rps / b.rps).toFixed(2)}× req/s, p99 ${(a.p99 / Math.max(b.p99, 1)).toFixed(2)}×, CPU/req ${(a.cpu / b.cpu).toFixed(2)}×`
      : "n/a";
  console.log(
    `\nCrew MCP vs tmcp: ${ratio(mcp, tmcp)}\nCrew MCP 2026-07-28 vs tmcp: ${ratio(modern, tmcp)}\nCrew MCP vs SDK documented: ${ratio(mcp, sdk)}\nCrew MCP vs Crew REST: ${ratio(mcp, rest)}`,
  );
  bench.reportFailures(rows);

  const calls = Number(process.env.BENCH_CALLS ?? 100_000);
  if (calls > 0 && !only) {
    const memory = async () => (await (await fetch(`${url}/bench-memory`)).json()) as { rss: number; heapUsed: number };
    const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
    for (const i of [2, 3]) {
      const scenario = scenarios[i];
      if (!scenario) continue;
      const before = await memory();
      const r = await autocannon({ ...scenario.options, connections: 10, amount: calls });
      const after = await memory();
      console.log(
        `${scenario.name}, ${calls} calls in a row (${r.non2xx + r.errors} failed): RSS ${mib(before.rss)} → ${mib(after.rss)}, heap ${mib(before.heapUsed)} → ${mib(after.heapUsed)}`,
      );
    }
  }

  if (!only || only === "listen") {
    const idle = await measureIdleSubscriptions(server);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    console.log(
      `\nIdle subscriptions/listen streams: ${idle.count} open at once cost ${kb(idle.heapPerStream)} of heap and ${kb(idle.rssPerStream)} of RSS each (after GC; aim < 50 KB)`,
    );
  }
}

if (process.argv.includes("--serve")) {
  await runServer();
} else {
  const profileDir = process.env.BENCH_CPU_PROF;
  await bench.withServer("scripts/bench-mcp.ts", runBench, {
    nodeArgs: [
      // gc() for the idle-subscription figure (scripts/bench-listen.ts).
      "--expose-gc",
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
    ],
  });
}
