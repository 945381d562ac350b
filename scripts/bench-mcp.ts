/**
 * `npm run bench` (second part): what the MCP projection costs.
 *
 * Three scenarios against one spawned server process (this file with `--serve`: Crew as `npm start`
 * builds it, plus `POST /floor`), each after a warm-up, loopback only, autocannon in this process:
 *   - floor: a minimal stateless MCP server on the same SDK transport (new Server + transport per
 *     request, JSON responses, shared validator) whose one tool returns a constant; no auth.
 *   - MCP: `tools/call crew_agent_status` through /mcp with an API key (auth, quota, plan ∩ scope,
 *     validation, the handler, structuredContent).
 *   - REST: the same data from `GET /api/mcp/agents` with the same key.
 * Prints req/s, p50/p99, server CPU per request, and the ratios MCP/REST and MCP/floor. Bounded: about 25 s in all.
 * Env: BENCH_SECONDS (per scenario, default 5), BENCH_CONNECTIONS (default 10).
 * Spawning, measuring and the table: scripts/bench-lib.ts (shared with scripts/bench.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { boot } from "../src/boot.ts";
import { silentLogger } from "../src/lib/log.ts";
import * as bench from "./bench-lib.ts";

const SECONDS = bench.secondsPerScenario(5);

/** The floor: the least a stateless MCP server on this transport can do per request. */
function floorHandler(): (req: Request) => Promise<Response> {
  const validator = new AjvJsonSchemaValidator();
  const tool = { name: "constant", inputSchema: { type: "object" as const }, outputSchema: { type: "object" as const } };
  return async (req) => {
    const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} }, jsonSchemaValidator: validator });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({
      content: [{ type: "text", text: '{"ok":true}' }],
      structuredContent: { ok: true },
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(req);
  };
}

async function runServer(): Promise<void> {
  const booted = await boot(process.env, { log: silentLogger });
  const floor = floorHandler();
  bench.serve(booted, (req) => (new URL(req.url).pathname === "/floor" ? floor(req) : booted.app.fetch(req)));
}

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};
const callTool = (name: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });

async function runBench({ url, key }: bench.BenchServer): Promise<void> {
  console.log(`\nMCP bench: Node ${process.version}, ${bench.loadSummary(SECONDS)}`);
  const auth = { authorization: `Bearer ${key}` };
  const floor = await bench.measure(
    "floor: minimal MCP tools/call (constant)",
    { url: `${url}/floor`, method: "POST", headers: MCP_HEADERS, body: callTool("constant") },
    SECONDS,
  );
  const mcp = await bench.measure(
    "MCP tools/call crew_agent_status (API key)",
    { url: `${url}/mcp`, method: "POST", headers: { ...MCP_HEADERS, ...auth }, body: callTool("crew_agent_status") },
    SECONDS,
  );
  const rest = await bench.measure("GET /api/mcp/agents (API key)", { url: `${url}/api/mcp/agents`, headers: auth }, SECONDS);

  bench.printTable([floor, mcp, rest]);
  const ratio = (a: bench.Measured, b: bench.Measured) =>
    `${(a.rps / b.rps).toFixed(2)}× req/s, p99 ${(a.p99 / Math.max(b.p99, 1)).toFixed(2)}×, CPU/req ${(a.cpu / b.cpu).toFixed(2)}×`;
  console.log(`\nMCP vs REST: ${ratio(mcp, rest)}\nMCP vs floor: ${ratio(mcp, floor)}`);
  bench.reportFailures([floor, mcp, rest]);
}

if (process.argv.includes("--serve")) {
  await runServer();
} else {
  await bench.withServer("scripts/bench-mcp.ts", runBench);
}
