/**
 * What scripts/bench.ts and scripts/bench-mcp.ts share. Each runs itself twice: the parent prepares
 * a database, spawns the script again with `--serve` (so autocannon, in the parent, does not share
 * the server's event loop), measures, and prints a Markdown table; the child serves Crew as
 * `npm start` builds it plus whatever extra routes the script compares against.
 * Env: BENCH_SECONDS (per scenario; each script has its default), BENCH_CONNECTIONS (default 10).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve as serveNode } from "@hono/node-server";
import autocannon from "autocannon";
import { generateApiKey } from "../src/auth/api-keys.ts";
import { hashPassword } from "../src/auth/passwords.ts";
import { prepareStore } from "../src/boot.ts";
import type { Booted } from "../src/boot-app.ts";
import { loadConfig } from "../src/config.ts";
import { AGENTS } from "../src/domain.ts";
import { HOUR } from "../src/lib/clock.ts";
import { silentLogger } from "../src/lib/log.ts";
import { newId, randomSecret } from "../src/lib/random.ts";
import { insertApiKey } from "../src/store/auth/api-keys.ts";
import { createUser } from "../src/store/auth/users.ts";
import { ensureDefaultOrgAndAgents } from "../src/store/orgs/orgs.ts";
import { runInsertStatement } from "../src/store/runs/runs.ts";
import { freePort } from "./postgres-cluster.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** High enough never to answer 429 during a bench, low enough to keep the quota path real. */
const RATE_LIMIT = 10_000_000;

/** Seconds per measured scenario: BENCH_SECONDS, else the script's default. */
export const secondsPerScenario = (fallback: number) => Number(process.env.BENCH_SECONDS ?? fallback);

/** How the load is applied, for a run's headline. */
export const loadSummary = (seconds: number) => `${CONNECTIONS} connections, ${seconds} s per scenario after ${WARMUP_SECONDS} s warm-up`;

// ---------------------------------------------------------------------------------------------
// Server mode (the child).

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Serves `route` on loopback at the booted config's port, plus GET /bench-cpu: the server's CPU time
 * and the count of requests served so far (the probe itself not counted). Server CPU per request is
 * steadier than req/s on a machine shared with other work.
 */
export function serve(booted: Booted, route: (req: Request) => Response | Promise<Response>): void {
  let served = 0;
  const server = serveNode({
    fetch: (req) => {
      if (req.url.endsWith("/bench-cpu")) return Response.json({ cpuMicros: cpuMicros(), served });
      served++;
      return route(req);
    },
    port: booted.config.port,
    hostname: "127.0.0.1",
  });
  // A clean exit (not the default SIGTERM death) so --cpu-prof can write its profile.
  process.on("SIGTERM", () => server.close(() => booted.close().then(() => process.exit(0))));
}

// ---------------------------------------------------------------------------------------------
// Load mode (the parent).

/** A user on the operator plan, an admin key, and some agent history so the dashboard has rows to read. */
async function prepare(databaseUrl: string, secret: string): Promise<string> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, CREW_SECRET: secret });
  const now = Date.now();
  const db = await prepareStore(config, silentLogger, now);
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
  // Generous: a server loading the tracing SDK on a machine shared with other work takes a while.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bench server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("bench server not ready within 90 s");
}

export interface BenchServer {
  url: string;
  /** An admin API key of an operator-plan user. */
  key: string;
  /** The database file the server uses ("" on PostgreSQL). */
  databasePath: string;
  databaseUrl: string;
  /** Another server process (the same script, environment and database) on its own port; stopped with the first. */
  spawnPeer(): Promise<string>;
}

export interface ServerOptions {
  /** Extra `node` arguments for the server (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** The database to prepare and serve; default: a SQLite file in the temp folder. */
  databaseUrl?: string;
  /** Runs after the database is prepared (schema, user, key) and before the server starts: bulk rows. */
  seed?(databaseUrl: string): Promise<void>;
}

/**
 * Prepares a database (a SQLite file in a temp folder unless `databaseUrl` is given), starts
 * `node [nodeArgs] --import tsx <script> --serve` on a free loopback port, runs `body` once it is
 * ready, then stops the server(s) (SIGTERM, awaited) and removes the folder.
 */
export async function withServer(
  script: string,
  body: (server: BenchServer) => Promise<void>,
  { nodeArgs = [], databaseUrl: given, seed }: ServerOptions = {},
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `crew-${basename(script, ".ts")}-`));
  const databasePath = given ? "" : join(dir, "crew.db");
  const databaseUrl = given ?? `file:${databasePath}`;
  // One secret for every process on the database, as PostgreSQL requires (src/config.ts).
  const secret = randomSecret(32);
  const children: ChildProcess[] = [];
  const start = async (): Promise<string> => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script, "--serve"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: url,
        DATABASE_URL: databaseUrl,
        RATE_LIMIT_PER_HOUR: String(RATE_LIMIT),
        CREW_SECRET: secret,
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.push(child);
    await waitReady(url, child);
    return url;
  };
  try {
    const key = await prepare(databaseUrl, secret);
    if (seed) await seed(databaseUrl);
    const url = await start();
    await body({ url, key, databasePath, databaseUrl, spawnPeer: start });
  } finally {
    await Promise.all(
      children
        .filter((child) => child.exitCode === null)
        .map((child) => {
          const exited = new Promise((resolve) => child.once("exit", resolve));
          child.kill("SIGTERM");
          return exited;
        }),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system) per request, µs. */
  cpu: number;
  failures: number;
}

async function serverCpu(origin: string): Promise<{ cpuMicros: number; served: number }> {
  return (await (await fetch(`${origin}/bench-cpu`)).json()) as { cpuMicros: number; served: number };
}

/** One scenario: a warm-up, then `seconds` of load with the server's CPU read before and after. */
export async function measure(name: string, options: autocannon.Options, seconds: number): Promise<Measured> {
  const origin = new URL(options.url).origin;
  const all = { ...options, connections: CONNECTIONS };
  await autocannon({ ...all, duration: WARMUP_SECONDS });
  const before = await serverCpu(origin);
  const r = await autocannon({ ...all, duration: seconds });
  const after = await serverCpu(origin);
  return {
    name,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpu: (after.cpuMicros - before.cpuMicros) / Math.max(1, after.served - before.served),
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

/** Rounds for interleaved runs: BENCH_ROUNDS, default 3. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/**
 * Interleaved rounds: every scenario once per round, in the same order, `rounds` times, so a slow
 * patch of a shared machine hits all of them alike; each figure is the median over the rounds
 * (failures are summed).
 */
export async function interleaved(
  scenarios: { name: string; options: autocannon.Options }[],
  seconds: number,
  rounds = ROUNDS,
): Promise<Measured[]> {
  const runs = new Map<string, Measured[]>(scenarios.map((s) => [s.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const s of scenarios) runs.get(s.name)?.push(await measure(s.name, s.options, seconds));
  }
  return scenarios.map(({ name }) => {
    const list = runs.get(name) ?? [];
    return {
      name,
      rps: median(list.map((m) => m.rps)),
      p50: median(list.map((m) => m.p50)),
      p99: median(list.map((m) => m.p99)),
      cpu: median(list.map((m) => m.cpu)),
      failures: list.reduce((n, m) => n + m.failures, 0),
    };
  });
}

/** A column of the results table besides the fixed ones; it stands between p99 and server CPU. */
export interface Column<R> {
  heading: string;
  cell(row: R): string;
}

/** The results as a Markdown table on stdout. */
export function printTable<R extends Measured>(rows: R[], extra: Column<R>[] = []): void {
  const headings = ["scenario", "req/s", "p50 ms", "p99 ms", ...extra.map((c) => c.heading), "server CPU µs/req"];
  const align = headings.map((_, i) => (i === 0 ? "---" : "---:"));
  console.log(`\n| ${headings.join(" | ")} |\n| ${align.join(" | ")} |`);
  for (const r of rows) {
    const cells = [r.name, String(Math.round(r.rps)), String(r.p50), String(r.p99), ...extra.map((c) => c.cell(r)), r.cpu.toFixed(0)];
    console.log(`| ${cells.join(" | ")} |`);
  }
}

/** Names the scenarios that saw non-2xx answers, errors or timeouts, and makes the run fail. */
export function reportFailures(rows: Measured[]): void {
  const failed = rows.filter((r) => r.failures > 0);
  if (failed.length > 0) {
    console.error(`\nNon-2xx responses or errors in: ${failed.map((r) => `${r.name} (${r.failures})`).join(", ")}`);
    process.exitCode = 1;
  }
}
