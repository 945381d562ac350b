/**
 * `npm run bench -- --scale N [--engine sqlite|postgres]` (N default 1,000,000): Crew at a size.
 *
 * For each engine (SQLite; with `--engine postgres`, SQLite then PostgreSQL in the same run, side
 * by side) a database is prepared and N actions are written straight into it (scripts/bench-seed.ts:
 * the rows POST /api/mcp/actions would store), then a spawned server (this file with `--serve`:
 * Crew as `npm start` builds it, background tasks and regeneration included) answers, through the
 * API, a client issuing one request at a time: the first actions page, a filtered page (status +
 * type), a deep cursor page (the middle of the third priority rank), GET /api/mcp/agents and GET
 * /api/mcp/briefing. Last, BENCH_SCALE_POSTS single-action POSTs (one at a time) give the POST
 * p50/p99 and the database bytes per POSTed action.
 *
 * PostgreSQL runs in a throwaway cluster (scripts/postgres-cluster.ts) with its default settings,
 * fsync and synchronous commit on, plus BENCH_PG_SETTINGS (comma-separated `name=value`, printed
 * with the results). After its timings come EXPLAIN (ANALYZE) of the three action pages
 * (scripts/bench-explain.ts) and two Crew processes against one (scripts/bench-pair.ts).
 * Env: BENCH_SCALE_SAMPLES (timed requests per read, default 200), BENCH_SCALE_POSTS (default
 * 10,000), BENCH_SECONDS and BENCH_ROUNDS for the two-process part (default 6 s, 3 rounds).
 */

import { loadavg } from "node:os";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import Database from "libsql";
import postgres from "postgres";
import { boot } from "../src/boot-app.ts";
import { silentLogger } from "../src/lib/log.ts";
import { explainPages, printExplained } from "./bench-explain.ts";
import * as bench from "./bench-lib.ts";
import { measurePair, printPair } from "./bench-pair.ts";
import { type Seeded, seedPostgres, seedSqlite } from "./bench-seed.ts";
import { startPostgresCluster } from "./postgres-cluster.ts";

const POSTS = Number(process.env.BENCH_SCALE_POSTS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 200);
const PRIORITIES = ["critical", "high", "medium", "low"] as const;
const PG_SETTINGS = (process.env.BENCH_PG_SETTINGS ?? "").split(",").filter((s) => s.includes("="));

async function runServer(): Promise<void> {
  const booted = await boot(process.env, { log: silentLogger });
  bench.serve(booted, (req) => booted.app.fetch(req));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Row {
  name: string;
  p50: number;
  p99: number;
  n: number;
}

function summary(name: string, samples: number[]): Row {
  const sorted = [...samples].sort((a, b) => a - b);
  return { name, p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

async function timed(url: string, init: RequestInit): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  if (res.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${body.slice(0, 300)}`);
  return performance.now() - start;
}

/** Logical size: SQLite's pages in use × page size (WAL included, as a reader sees it); PostgreSQL's database files. */
async function databaseBytes(server: bench.BenchServer): Promise<number> {
  if (!server.databasePath) {
    const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ bytes: string }[]>`SELECT pg_database_size(current_database()) AS bytes`;
      return Number(row?.bytes ?? 0);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
  const conn = new Database(server.databasePath, { readonly: true });
  try {
    const pages = (conn.prepare("PRAGMA page_count").get([]) as { page_count: number }).page_count;
    const free = (conn.prepare("PRAGMA freelist_count").get([]) as { freelist_count: number }).freelist_count;
    const size = (conn.prepare("PRAGMA page_size").get([]) as { page_size: number }).page_size;
    return (pages - free) * size;
  } finally {
    conn.close();
  }
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");

interface EngineResult {
  engine: string;
  rows: Row[];
  seedSeconds: number;
  mib: number;
  bytesPerPost: number;
}

/** The timed reads and POSTs of one engine's server. */
async function measureEngine(engine: string, seeded: () => Seeded, seedSeconds: () => number, server: bench.BenchServer) {
  const auth = { authorization: `Bearer ${server.key}` };
  const json = { ...auth, "content-type": "application/json" };
  const size = await databaseBytes(server);
  console.log(`${engine}: seeded in ${seedSeconds().toFixed(1)} s; database ${(size / 2 ** 20).toFixed(0)} MiB; load average ${load()}`);
  const cursor = (rank: number, id: string) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify([rank, id])));
  const reads: [string, string][] = [
    ["actions: first page (50)", "/api/mcp/actions"],
    ["actions: filtered page (status=pending, type=task)", "/api/mcp/actions?status=pending&type=task"],
    ["actions: deep cursor page (middle of rank 2)", `/api/mcp/actions?cursor=${cursor(2, seeded().middleOfRank2)}`],
    ["actions: cursor page after the last critical", `/api/mcp/actions?cursor=${cursor(0, seeded().lastCritical)}`],
    ["agents", "/api/mcp/agents"],
    ["briefing", "/api/mcp/briefing"],
  ];
  const rows: Row[] = [];
  for (const [name, path] of reads) {
    for (let i = 0; i < 10; i++) await timed(server.url + path, { headers: auth }); // warm-up
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) samples.push(await timed(server.url + path, { headers: auth }));
    rows.push(summary(name, samples));
  }
  const before = await databaseBytes(server);
  const posts: number[] = [];
  for (let i = 0; i < POSTS; i++) {
    const body = JSON.stringify({ title: `Single action ${i}`, priority: PRIORITIES[i % 4] });
    posts.push(await timed(`${server.url}/api/mcp/actions`, { method: "POST", headers: json, body }));
  }
  const after = await databaseBytes(server);
  rows.push(summary(`POST /api/mcp/actions, one action (${POSTS.toLocaleString("en")}, one at a time)`, posts));
  console.log(`${engine}: reads and POSTs done; load average ${load()}`);
  return { engine, rows, seedSeconds: seedSeconds(), mib: size / 2 ** 20, bytesPerPost: (after - before) / POSTS };
}

/** Seeds through `seed`, serves, measures; `more` runs after the timings on the same server. */
async function runEngine(
  engine: string,
  seed: (databaseUrl: string, path: string) => Promise<Seeded>,
  databaseUrl?: string,
  more?: (server: bench.BenchServer, seeded: Seeded) => Promise<void>,
): Promise<EngineResult> {
  let seeded: Seeded = { middleOfRank2: "", lastCritical: "" };
  let seconds = 0;
  let result: EngineResult | null = null;
  await bench.withServer(
    "scripts/bench-scale.ts",
    async (server) => {
      result = await measureEngine(
        engine,
        () => seeded,
        () => seconds,
        server,
      );
      if (more) await more(server, seeded);
    },
    {
      databaseUrl,
      seed: async (url) => {
        const started = performance.now();
        seeded = await seed(url, url.startsWith("file:") ? url.slice("file:".length) : "");
        seconds = (performance.now() - started) / 1000;
      },
    },
  );
  if (!result) throw new Error(`${engine}: no result`);
  return result;
}

function printSideBySide(scale: number, results: EngineResult[]): void {
  const head = results.map((r) => `${r.engine} p50 ms | ${r.engine} p99 ms`).join(" | ");
  console.log(`\n| at ${scale.toLocaleString("en")} actions | ${head} |`);
  console.log(`| --- | ${results.map(() => "---: | ---:").join(" | ")} |`);
  for (const [i, row] of (results[0]?.rows ?? []).entries()) {
    const cells = results.map((r) => `${r.rows[i]?.p50.toFixed(2)} | ${r.rows[i]?.p99.toFixed(2)}`).join(" | ");
    console.log(`| ${row.name} | ${cells} |`);
  }
  for (const r of results) {
    console.log(
      `\n${r.engine}: seeded in ${r.seedSeconds.toFixed(1)} s, ${r.mib.toFixed(0)} MiB; ${r.bytesPerPost.toFixed(0)} bytes per POSTed action; ${SAMPLES} timed requests per read`,
    );
  }
}

async function runPostgres(scale: number): Promise<EngineResult> {
  const cluster = await startPostgresCluster({ settings: PG_SETTINGS });
  try {
    const admin = postgres(cluster.adminUrl, { max: 1, onnotice: () => {} });
    const [version] = await admin<{ v: string }[]>`SELECT current_setting('server_version') AS v`;
    const settings = await admin<{ name: string; setting: string }[]>`
      SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'lc_collate')`;
    await admin.unsafe("CREATE DATABASE crew_bench");
    await admin.end({ timeout: 5 });
    console.log(
      `PostgreSQL ${version?.v} (throwaway cluster; ${settings.map((s) => `${s.name}=${s.setting}`).join(", ")}${PG_SETTINGS.length ? `; BENCH_PG_SETTINGS ${PG_SETTINGS.join(", ")}` : ""})`,
    );
    const databaseUrl = cluster.adminUrl.replace(/\/postgres$/, "/crew_bench");
    return await runEngine(
      "PostgreSQL",
      (url) => seedPostgres(url, scale),
      databaseUrl,
      async (server, seeded) => {
        printExplained(await explainPages(databaseUrl, seeded));
        const peer = await server.spawnPeer();
        console.log(
          `\nTwo Crew processes against one on PostgreSQL (${bench.loadSummary(bench.secondsPerScenario(6))}); load average ${load()}`,
        );
        const action = JSON.stringify({ title: "Follow up with Acme", priority: "high" });
        const rows = await measurePair(
          [server.url, peer],
          server.key,
          [
            { name: "GET /api/mcp/agents", path: "/api/mcp/agents" },
            { name: "POST /api/mcp/actions", path: "/api/mcp/actions", method: "POST", body: action },
          ],
          cluster.pid,
          bench.secondsPerScenario(6),
          bench.ROUNDS,
          databaseUrl,
        );
        printPair(rows);
        console.log(`Load average after: ${load()}`);
      },
    );
  } finally {
    await cluster.stop();
  }
}

if (process.argv.includes("--serve")) {
  await runServer();
} else {
  const at = process.argv.indexOf("--scale");
  const scale = Number(process.argv[at + 1] ?? 1_000_000) || 1_000_000;
  const engineAt = process.argv.indexOf("--engine");
  const engine = engineAt === -1 ? "sqlite" : process.argv[engineAt + 1];
  if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--engine sqlite|postgres, got ${engine}`);
  console.log(
    `Scale bench: Node ${process.version}, ${scale.toLocaleString("en")} actions written straight into the database, then read and POSTed through the API; load average ${load()}`,
  );
  const results = [await runEngine("SQLite", (_url, path) => seedSqlite(path, scale))];
  if (engine === "postgres") results.push(await runPostgres(scale));
  printSideBySide(scale, results);
}
