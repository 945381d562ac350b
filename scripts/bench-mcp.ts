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
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import autocannon from "autocannon";
import { AGENTS } from "../src/agents/catalog.ts";
import { generateApiKey } from "../src/auth/api-keys.ts";
import { hashPassword } from "../src/auth/passwords.ts";
import { boot, openStore } from "../src/boot.ts";
import { loadConfig } from "../src/config.ts";
import { HOUR } from "../src/lib/clock.ts";
import { silentLogger } from "../src/lib/log.ts";
import { newId, randomSecret } from "../src/lib/random.ts";
import { runInsertStatement } from "../src/store/agents.ts";
import { insertApiKey } from "../src/store/api-keys.ts";
import { ensureDefaultOrgAndAgents } from "../src/store/orgs.ts";
import { createUser } from "../src/store/users.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RATE_LIMIT = 10_000_000;

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
  // Server CPU time per request: steadier than req/s on a machine shared with other work.
  let served = 0;
  const cpu = () => Response.json({ cpuMicros: process.cpuUsage().user + process.cpuUsage().system, served });
  const server = serve({
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/bench-cpu") return cpu();
      served++;
      return path === "/floor" ? floor(req) : booted.app.fetch(req);
    },
    port: booted.config.port,
    hostname: "127.0.0.1",
  });
  process.on("SIGTERM", () => server.close(() => booted.close().then(() => process.exit(0))));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** An operator with an admin key, and agent history so the dashboard has rows to read (as scripts/bench.ts). */
async function prepare(databaseUrl: string): Promise<string> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  const now = Date.now();
  const db = await openStore(config, silentLogger, now);
  const org = await ensureDefaultOrgAndAgents(db, config.defaultTimeZone, now);
  const user = await createUser(
    db,
    { orgId: org.id, email: "bench@example.com", name: "Bench", passwordHash: await hashPassword(randomSecret(16)), plan: "operator" },
    now,
  );
  const { key, hash } = generateApiKey();
  await insertApiKey(db, { hash, userId: user.id, name: "bench", scopes: ["admin"] }, now);
  const runs = AGENTS.flatMap((agent, a) =>
    Array.from({ length: 30 }, (_, i) => {
      const finishedAt = now - (i * 6 + (a % 5)) * HOUR;
      return runInsertStatement({
        id: newId("run", finishedAt),
        orgId: org.id,
        agentId: agent.id,
        status: i % 7 === 3 ? "error" : "ok",
        summary: `Run ${i} of ${agent.name}: all figures in line with last week.`,
        error: i % 7 === 3 ? "upstream timeout" : null,
        output: { items: [{ title: "Something worth knowing", detail: "x".repeat(200) }] },
        hasData: true,
        startedAt: finishedAt - 30_000,
        finishedAt,
      });
    }),
  );
  await db.batch(runs, "write");
  db.close();
  return key;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bench server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("bench server not ready within 30 s");
}

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system) per request, µs. */
  cpu: number;
  failures: number;
}

async function serverCpu(url: string): Promise<{ cpuMicros: number; served: number }> {
  return (await (await fetch(`${url}/bench-cpu`)).json()) as { cpuMicros: number; served: number };
}

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};
const callTool = (name: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });

async function measure(base: string, name: string, options: autocannon.Options): Promise<Measured> {
  const all = { ...options, connections: CONNECTIONS };
  await autocannon({ ...all, duration: WARMUP_SECONDS });
  const before = await serverCpu(base);
  const r = await autocannon({ ...all, duration: SECONDS });
  const after = await serverCpu(base);
  return {
    name,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpu: (after.cpuMicros - before.cpuMicros) / Math.max(1, after.served - before.served),
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function runBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "crew-bench-mcp-"));
  const databaseUrl = `file:${join(dir, "crew.db")}`;
  let child: ChildProcess | null = null;
  try {
    const key = await prepare(databaseUrl);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ["--import", "tsx", "scripts/bench-mcp.ts", "--serve"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: url,
        DATABASE_URL: databaseUrl,
        RATE_LIMIT_PER_HOUR: String(RATE_LIMIT),
        CREW_SECRET: randomSecret(32),
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    await waitReady(url, child);
    console.log(
      `\nMCP bench: Node ${process.version}, ${CONNECTIONS} connections, ${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up`,
    );

    const auth = { authorization: `Bearer ${key}` };
    const floor = await measure(url, "floor: minimal MCP tools/call (constant)", {
      url: `${url}/floor`,
      method: "POST",
      headers: MCP_HEADERS,
      body: callTool("constant"),
    });
    const mcp = await measure(url, "MCP tools/call crew_agent_status (API key)", {
      url: `${url}/mcp`,
      method: "POST",
      headers: { ...MCP_HEADERS, ...auth },
      body: callTool("crew_agent_status"),
    });
    const rest = await measure(url, "GET /api/mcp/agents (API key)", { url: `${url}/api/mcp/agents`, headers: auth });

    console.log("\n| scenario | req/s | p50 ms | p99 ms | server CPU µs/req |\n| --- | ---: | ---: | ---: | ---: |");
    for (const r of [floor, mcp, rest]) console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.cpu.toFixed(0)} |`);
    const ratio = (a: Measured, b: Measured) =>
      `${(a.rps / b.rps).toFixed(2)}× req/s, p99 ${(a.p99 / Math.max(b.p99, 1)).toFixed(2)}×, CPU/req ${(a.cpu / b.cpu).toFixed(2)}×`;
    console.log(`\nMCP vs REST: ${ratio(mcp, rest)}\nMCP vs floor: ${ratio(mcp, floor)}`);
    const failed = [floor, mcp, rest].filter((r) => r.failures > 0);
    if (failed.length > 0) {
      console.error(`\nNon-2xx responses or errors in: ${failed.map((r) => `${r.name} (${r.failures})`).join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--serve")) {
  await runServer();
} else {
  await runBench();
}
