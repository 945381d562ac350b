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
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import autocannon from "autocannon";
import { Hono } from "hono";
import { AGENTS } from "../src/agents/catalog.ts";
import type { AppEnv } from "../src/app.ts";
import { generateApiKey } from "../src/auth/api-keys.ts";
import { hashPassword } from "../src/auth/passwords.ts";
import { protect } from "../src/auth/protect.ts";
import { boot, openStore } from "../src/boot.ts";
import { loadConfig } from "../src/config.ts";
import { renderError, requestId } from "../src/http/middleware.ts";
import { HOUR } from "../src/lib/clock.ts";
import { silentLogger } from "../src/lib/log.ts";
import { newId, randomSecret } from "../src/lib/random.ts";
import { runInsertStatement } from "../src/store/agents.ts";
import { insertApiKey } from "../src/store/api-keys.ts";
import { ensureDefaultOrgAndAgents } from "../src/store/orgs.ts";
import { createUser } from "../src/store/users.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** High enough never to answer 429 during the bench, low enough to keep the quota path real. */
const RATE_LIMIT = 10_000_000;

/** Server mode: Crew as `npm start` builds it, with GET /bare beside it. */
async function runServer(): Promise<void> {
  const booted = await boot(process.env, { log: silentLogger });
  // Crew's request-id and Bearer gate (credential + quota) in front of a constant answer: the cost
  // of authenticating a request, apart from what an endpoint then reads.
  const gated = new Hono<AppEnv>();
  gated.use("*", async (c, next) => {
    c.set("deps", booted.deps);
    await next();
  });
  gated.use("*", requestId(booted.deps.clock.now));
  gated.onError(renderError);
  gated.get("/gated", protect(), (c) => c.json({ ok: true }));
  const bare = new Hono();
  bare.get("/bare", (c) => c.json({ ok: true }));
  // Server CPU time per request: steadier than req/s on a machine shared with other work.
  let served = 0;
  bare.get("/bench-cpu", (c) => c.json({ cpuMicros: cpuMicros(), served }));
  const server = serve({
    fetch: (req) => {
      served++;
      if (req.url.endsWith("/bare") || req.url.endsWith("/bench-cpu")) return bare.fetch(req);
      return req.url.endsWith("/gated") ? gated.fetch(req) : booted.app.fetch(req);
    },
    port: booted.config.port,
    hostname: "127.0.0.1",
  });
  // A clean exit (not the default SIGTERM death) so --cpu-prof can write its profile.
  process.on("SIGTERM", () => server.close(() => booted.close().then(() => process.exit(0))));
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
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

/** A user on the operator plan, an admin key, and some agent history so the dashboard has rows to read. */
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

interface Scenario {
  name: string;
  path: string;
  method?: "GET" | "POST";
  body?: string;
  auth?: boolean;
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

async function measure(url: string, key: string, s: Scenario): Promise<Measured> {
  const headers: Record<string, string> = {};
  if (s.auth) headers.authorization = `Bearer ${key}`;
  if (s.body) headers["content-type"] = "application/json";
  const options = { url: url + s.path, method: s.method ?? "GET", body: s.body, headers, connections: CONNECTIONS };
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const before = await serverCpu(url);
  const r = await autocannon({ ...options, duration: SECONDS });
  const after = await serverCpu(url);
  return {
    name: s.name,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpu: (after.cpuMicros - before.cpuMicros) / (after.served - before.served),
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function runBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "crew-bench-"));
  const databaseUrl = `file:${join(dir, "crew.db")}`;
  let child: ChildProcess | null = null;
  try {
    const key = await prepare(databaseUrl);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const profileDir = process.env.BENCH_CPU_PROF;
    const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
    child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "scripts/bench.ts", "--serve"], {
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
      `Node ${process.version}, server in a spawned process, ${CONNECTIONS} connections, ${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up`,
    );

    const only = process.env.BENCH_ONLY;
    const action = JSON.stringify({ title: "Follow up with Acme", priority: "high" });
    const rows: Array<Measured & { ratio?: number }> = [];
    for (const [authed, s] of [
      ["GET /gated: Bearer gate only (API key)", { path: "/gated", auth: true }],
      ["GET /api/mcp/agents (API key)", { path: "/api/mcp/agents", auth: true }],
      ["POST /api/mcp/actions (API key)", { path: "/api/mcp/actions", method: "POST", body: action, auth: true }],
    ] as const) {
      if (only && !s.path.endsWith(only)) continue;
      if (only) {
        rows.push(await measure(url, key, { name: authed, ...s }));
        continue;
      }
      const bare = await measure(url, key, { name: "GET /bare", path: "/bare" });
      const real = await measure(url, key, { name: authed, ...s });
      rows.push(bare, { ...real, ratio: real.rps / bare.rps });
    }

    console.log("\n| scenario | req/s | p50 ms | p99 ms | vs bare | server CPU µs/req |\n| --- | ---: | ---: | ---: | ---: | ---: |");
    for (const r of rows) {
      console.log(
        `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.ratio === undefined ? "" : r.ratio.toFixed(2)} | ${r.cpu.toFixed(0)} |`,
      );
    }
    const failed = rows.filter((r) => r.failures > 0);
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
