/**
 * `npm run bench -- --scale N` (default 1,000,000): Crew at a size, filled through the public API.
 *
 * A spawned server (this file with `--serve`: Crew as `npm start` builds it, background tasks and
 * regeneration included) is filled with N actions by POST /api/mcp/actions in batches of 100 (4
 * requests in flight), then each read is timed by a client issuing one request at a time:
 * the first actions page, a filtered page (status + type), a deep cursor page (the middle of the
 * third priority rank), GET /api/mcp/agents and GET /api/mcp/briefing. Last, 10,000 single-action
 * POSTs (one at a time) give the POST p50/p99 and the database bytes per POSTed action (logical
 * size: pages in use × page size, before and after, WAL included).
 * Env: BENCH_SCALE_SAMPLES (timed requests per read, default 200).
 */

import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import Database from "libsql";
import { boot } from "../src/boot-app.ts";
import { silentLogger } from "../src/lib/log.ts";
import * as bench from "./bench-lib.ts";

const BATCH = 100;
const IN_FLIGHT = 4;
const POSTS = 10_000;
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 200);
const PRIORITIES = ["critical", "high", "medium", "low"] as const;

async function runServer(): Promise<void> {
  const booted = await boot(process.env, { log: silentLogger });
  bench.serve(booted, (req) => booted.app.fetch(req));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function summary(name: string, samples: number[]): { name: string; p50: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { name, p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

async function timed(url: string, init: RequestInit): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status}`);
  return performance.now() - start;
}

/** Logical database size: pages in use (not on the freelist) × page size, as a reader sees it (WAL included). */
function databaseBytes(path: string): number {
  const conn = new Database(path, { readonly: true });
  try {
    const pages = (conn.prepare("PRAGMA page_count").get([]) as { page_count: number }).page_count;
    const free = (conn.prepare("PRAGMA freelist_count").get([]) as { freelist_count: number }).freelist_count;
    const size = (conn.prepare("PRAGMA page_size").get([]) as { page_size: number }).page_size;
    return (pages - free) * size;
  } finally {
    conn.close();
  }
}

async function pool(total: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < total) await job(next++);
    }),
  );
}

async function runBench(scale: number, { url, key, databasePath }: bench.BenchServer): Promise<void> {
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, "content-type": "application/json" };
  console.log(
    `Scale bench: Node ${process.version}, ${scale.toLocaleString("en")} actions through POST /api/mcp/actions in batches of ${BATCH}`,
  );
  const started = performance.now();
  const middleOfRank2: string[] = [];
  const batches = Math.ceil(scale / BATCH);
  await pool(batches, IN_FLIGHT, async (b) => {
    const size = Math.min(BATCH, scale - b * BATCH);
    const actions = Array.from({ length: size }, (_, i) => ({
      title: `Scale action ${b * BATCH + i}`,
      priority: PRIORITIES[(b * BATCH + i) % 4],
      type: i % 3 === 0 ? "follow_up" : "task",
    }));
    const res = await fetch(`${url}/api/mcp/actions`, { method: "POST", headers: json, body: JSON.stringify({ actions }) });
    const body = (await res.json()) as { actionIds?: string[] };
    if (res.status !== 200 || !body.actionIds) throw new Error(`fill batch ${b}: ${res.status}`);
    if (b === Math.floor(batches / 2)) middleOfRank2.push(...body.actionIds.filter((_, i) => (b * BATCH + i) % 4 === 2));
    if (b > 0 && b % 1000 === 0)
      console.log(`  ${(b * BATCH).toLocaleString("en")} actions, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  });
  console.log(
    `Filled in ${((performance.now() - started) / 1000).toFixed(0)} s; database ${(databaseBytes(databasePath) / 2 ** 20).toFixed(0)} MiB`,
  );

  const deepCursor = encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify([2, middleOfRank2[0]])));
  const reads: [string, string][] = [
    ["actions: first page (50)", "/api/mcp/actions"],
    ["actions: filtered page (status=pending, type=task)", "/api/mcp/actions?status=pending&type=task"],
    ["actions: deep cursor page (middle of rank 2)", `/api/mcp/actions?cursor=${deepCursor}`],
    ["agents", "/api/mcp/agents"],
    ["briefing", "/api/mcp/briefing"],
  ];
  const rows = [];
  for (const [name, path] of reads) {
    for (let i = 0; i < 10; i++) await timed(url + path, { headers: auth }); // warm-up
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) samples.push(await timed(url + path, { headers: auth }));
    rows.push(summary(name, samples));
  }

  const before = databaseBytes(databasePath);
  const posts: number[] = [];
  await pool(POSTS, 1, async (i) => {
    posts.push(
      await timed(`${url}/api/mcp/actions`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ title: `Single action ${i}`, priority: PRIORITIES[i % 4] }),
      }),
    );
  });
  const after = databaseBytes(databasePath);
  rows.push(summary(`POST /api/mcp/actions, one action (${POSTS.toLocaleString("en")}, one at a time)`, posts));

  console.log(`\n| read at ${scale.toLocaleString("en")} actions | p50 ms | p99 ms | requests |\n| --- | ---: | ---: | ---: |`);
  for (const r of rows) console.log(`| ${r.name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.n} |`);
  console.log(
    `\nDatabase growth over ${POSTS.toLocaleString("en")} POSTs: ${((after - before) / POSTS).toFixed(0)} bytes per POSTed action`,
  );
}

if (process.argv.includes("--serve")) {
  await runServer();
} else {
  const at = process.argv.indexOf("--scale");
  const scale = Number(process.argv[at + 1] ?? 1_000_000) || 1_000_000;
  await bench.withServer("scripts/bench-scale.ts", (server) => runBench(scale, server));
}
