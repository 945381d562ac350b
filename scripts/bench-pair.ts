/**
 * Two Crew processes on one PostgreSQL against one, same run (part of `npm run bench -- --scale N
 * --engine postgres`, src/docs/notes/benchmark.md#postgresql).
 *
 * The round-robin is by connection, as a TCP load balancer spreads them: BENCH_CONNECTIONS
 * (default 10) keep-alive connections either all to one process, or half to each of two (one
 * autocannon instance per process, run at once; req/s summed, the worse p50/p99 of the two shown).
 * No proxy process: on a 2-core machine it would take CPU from what is measured.
 *
 * Every figure comes with where the CPU went, read over the measured seconds: the Crew processes
 * (their own /bench-cpu), PostgreSQL (the postmaster and its backends, /proc), this process (the
 * load generator) and the whole machine's busy share (/proc/stat), so the report can say what
 * limits the two-process figure.
 */
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import postgres from "postgres";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARMUP_SECONDS = 2;
const TICK_MICROS = 10_000; // USER_HZ is 100 on Linux: one clock tick is 10 ms

export interface PairScenario {
  name: string;
  path: string;
  method?: "GET" | "POST";
  body?: string;
}

export interface PairRow {
  name: string;
  processes: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU per request, µs: all Crew processes, PostgreSQL, the load generator. */
  crew: number;
  postgres: number;
  loader: number;
  /** Share of the machine's cores busy over the run (all processes, others' work included). */
  busy: number;
  failures: number;
  /** pg_locks sampled while it ran: samples taken, advisory locks seen, and the samples in which a backend waited for a lock. */
  locks?: { samples: number; advisory: number; waiting: number };
}

/**
 * Samples pg_locks of `databaseUrl` until `done` settles (src/docs/notes/postgres.md#writes-without-a-global-lock):
 * how many samples saw an advisory lock (held or awaited), and how many saw a backend waiting for any lock.
 */
async function sampleLocks(databaseUrl: string, done: Promise<unknown>): Promise<{ samples: number; advisory: number; waiting: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const seen = { samples: 0, advisory: 0, waiting: 0 };
  try {
    while (!finished) {
      const [row] = await sql<{ advisory: number; waiting: number }[]>`
        SELECT count(*) FILTER (WHERE l.locktype = 'advisory')::int AS advisory, count(*) FILTER (WHERE NOT l.granted)::int AS waiting
          FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE a.datname = current_database() AND l.pid <> pg_backend_pid()`;
      seen.samples++;
      if ((row?.advisory ?? 0) > 0) seen.advisory++;
      if ((row?.waiting ?? 0) > 0) seen.waiting++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
  return seen;
}

/** User + system CPU of the postmaster and every process whose parent it is (its backends and workers), µs. */
function postgresCpu(postmaster: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces): state ppid … utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(entry) === postmaster || Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_MICROS;
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line; idle and iowait are not busy). */
function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

async function crewCpu(urls: string[]): Promise<{ cpuMicros: number; served: number }> {
  const readings = await Promise.all(
    urls.map(async (url) => (await (await fetch(`${url}/bench-cpu`)).json()) as { cpuMicros: number; served: number }),
  );
  return readings.reduce((a, r) => ({ cpuMicros: a.cpuMicros + r.cpuMicros, served: a.served + r.served }), { cpuMicros: 0, served: 0 });
}

function options(url: string, key: string, s: PairScenario, connections: number, duration: number): autocannon.Options {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (s.body) headers["content-type"] = "application/json";
  return { url: url + s.path, method: s.method ?? "GET", body: s.body, headers, connections, duration };
}

/** One scenario against `urls` (one or two processes), the connections split evenly between them. */
async function measure(
  urls: string[],
  key: string,
  s: PairScenario,
  postmaster: number,
  seconds: number,
  databaseUrl?: string,
): Promise<PairRow> {
  const each = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  await Promise.all(urls.map((url) => autocannon(options(url, key, s, each, WARMUP_SECONDS))));
  const crewBefore = await crewCpu(urls);
  const pgBefore = postgresCpu(postmaster);
  const loaderBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const running = Promise.all(urls.map((url) => autocannon(options(url, key, s, each, seconds))));
  const locks = databaseUrl ? await sampleLocks(databaseUrl, running) : undefined;
  const results = await running;
  const machineAfter = machineTicks();
  const loader = process.cpuUsage(loaderBefore);
  const pgAfter = postgresCpu(postmaster);
  const crewAfter = await crewCpu(urls);
  const requests = Math.max(1, crewAfter.served - crewBefore.served);
  return {
    name: s.name,
    processes: urls.length,
    rps: results.reduce((n, r) => n + r.requests.total / r.duration, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    crew: (crewAfter.cpuMicros - crewBefore.cpuMicros) / requests,
    postgres: (pgAfter - pgBefore) / requests,
    loader: (loader.user + loader.system) / requests,
    busy: (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total),
    failures: results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    ...(locks ? { locks } : {}),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Each scenario with one process, then with two, in interleaved rounds (one, two, one, two, …) so a
 * slow patch of the shared machine hits both alike; each figure is the median over the rounds.
 */
export async function measurePair(
  urls: [string, string],
  key: string,
  scenarios: PairScenario[],
  postmaster: number,
  seconds: number,
  rounds: number,
  databaseUrl?: string,
): Promise<PairRow[]> {
  const out: PairRow[] = [];
  for (const s of scenarios) {
    const runs: [PairRow[], PairRow[]] = [[], []];
    for (let round = 0; round < rounds; round++) {
      runs[0].push(await measure([urls[0]], key, s, postmaster, seconds, databaseUrl));
      runs[1].push(await measure(urls, key, s, postmaster, seconds, databaseUrl));
    }
    for (const list of runs) {
      const pick = (f: (r: PairRow) => number) => median(list.map(f));
      out.push({
        name: s.name,
        processes: list[0]?.processes ?? 0,
        rps: pick((r) => r.rps),
        p50: pick((r) => r.p50),
        p99: pick((r) => r.p99),
        crew: pick((r) => r.crew),
        postgres: pick((r) => r.postgres),
        loader: pick((r) => r.loader),
        busy: pick((r) => r.busy),
        failures: list.reduce((n, r) => n + r.failures, 0),
        ...(list[0]?.locks
          ? {
              locks: list.reduce(
                (a, r) => ({
                  samples: a.samples + (r.locks?.samples ?? 0),
                  advisory: a.advisory + (r.locks?.advisory ?? 0),
                  waiting: a.waiting + (r.locks?.waiting ?? 0),
                }),
                { samples: 0, advisory: 0, waiting: 0 },
              ),
            }
          : {}),
      });
    }
  }
  return out;
}

export function printPair(rows: PairRow[]): void {
  console.log(
    "\n| scenario | Crew processes | req/s | two ÷ one | p50 ms | p99 ms | CPU µs/req: Crew | PostgreSQL | load generator | machine busy | pg_locks samples: advisory / any wait |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    const one = rows.find((o) => o.name === r.name && o.processes === 1);
    const ratio = r.processes === 2 && one ? (r.rps / one.rps).toFixed(2) : "";
    const cells = [
      r.name,
      r.processes,
      Math.round(r.rps),
      ratio,
      r.p50,
      r.p99,
      r.crew.toFixed(0),
      r.postgres.toFixed(0),
      r.loader.toFixed(0),
    ];
    const locks = r.locks ? `${r.locks.advisory} / ${r.locks.waiting} of ${r.locks.samples}` : "";
    console.log(`| ${cells.join(" | ")} | ${(r.busy * 100).toFixed(0)} % | ${locks} |`);
  }
  const failed = rows.filter((r) => r.failures > 0);
  if (failed.length > 0) {
    console.error(`\nNon-2xx responses or errors in: ${failed.map((r) => `${r.name} × ${r.processes} (${r.failures})`).join(", ")}`);
    process.exitCode = 1;
  }
}
