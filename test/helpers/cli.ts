/**
 * The `crew` CLI and the three runtime entries as real processes: run a command and collect its
 * output and exit code; start a server under Node, Deno or Bun and stop it with SIGTERM; serve an
 * existing database in-process (to look at what a CLI run wrote); prepare a database (a file, or one
 * on the run's PostgreSQL cluster: test/helpers/database.ts) with a user and key for such a process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { createApp } from "../../src/app.ts";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { runCli } from "../../src/cli/index.ts";
import { loadConfig } from "../../src/config.ts";
import { type Clock, systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { resolveDeps } from "../../src/resolve-deps.ts";
import { insertApiKey } from "../../src/store/auth/api-keys.ts";
import { createUser } from "../../src/store/auth/users.ts";
import { openStore } from "../../src/store/db.ts";
import { databaseEnv, testDatabaseUrl } from "./database.ts";
import { prepareDatabase, tempDir, testPasswordHash } from "./server.ts";
import { freePort } from "./spawn.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The same command line through runCli in this process, its output captured (no process start-up cost). */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | "running"; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, env, {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a child gets: this process's, minus Crew's own variables, plus `env`. */
function childEnv(env: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined && !/^(PORT|HOST|BASE_URL|DATABASE_|CREW_|TZ_DEFAULT|RATE_LIMIT|KEY_CREATE)/.test(e[0]),
    ),
  );
  return { ...base, LOG_LEVEL: "silent", ...env };
}

// Each run is a Node process loading tsx (~0.5 s of CPU): at most a few at once on a 2-core machine.
const MAX_CONCURRENT = 3;
let running = 0;
const waiting: (() => void)[] = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/** `crew …args` through bin/crew.js, as `npx crew` runs it (in `cwd`, by default the checkout). */
export function runCrew(args: string[], env: Record<string, string>, input?: string, cwd: string = ROOT): Promise<CliResult> {
  return slot(
    () =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [`${ROOT}bin/crew.js`, ...args], { cwd, env: childEnv(env) });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(input ?? "");
      }),
  );
}

export interface RuntimeServer {
  url: string;
  /** What the process printed to stdout so far. */
  stdout(): string;
  /** SIGTERM, then the exit code (SIGKILL after 15 s, which the caller sees as a null code). */
  stop(): Promise<number | null>;
}

const LISTENING = /Crew is listening on (http:\/\/\S+)/;

/** Starts a server process and resolves once it prints its listening line. */
export async function startRuntime(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<RuntimeServer> {
  const child: ChildProcess = spawn(command, args, { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = LISTENING.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    url,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(force);
      return code;
    },
  };
}

/**
 * The command of deno.json's `start` task, with `extraWriteDir` added to --allow-write (the task
 * allows writing to ./data only; tests keep their database in a temp folder).
 */
export function denoStartCommand(extraWriteDir: string): { command: string; args: string[] } {
  const task: string = JSON.parse(readFileSync(`${ROOT}deno.json`, "utf8")).tasks.start;
  const [command, ...args] = task.split(/\s+/).map((part) => (part.startsWith("--allow-write=") ? `${part},${extraWriteDir}` : part));
  if (!command) throw new Error("deno.json has no start task");
  return { command, args };
}

/** Serves an existing database in this process (real loopback HTTP), with the system clock by default. */
export async function serveDatabase(databaseUrl: string, clock: Clock = systemClock): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({ ...databaseEnv(databaseUrl), BASE_URL: url, PORT: String(port), LOG_LEVEL: "silent" });
  const db = await openStore({ url: databaseUrl });
  const app = createApp(resolveDeps({ db, config, clock, log: silentLogger }));
  const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
    },
  };
}

export interface DatabaseFile {
  /** The database's URL: `file:` crew.db in `dir`, or a fresh database on the PostgreSQL cluster. */
  dbUrl: string;
  /** DATABASE_URL (and on PostgreSQL CREW_SECRET) for a process on it. */
  env: { DATABASE_URL: string; CREW_SECRET?: string };
  /** The temp folder, for what else a process may write (Deno's --allow-write). */
  dir: string;
  /** An admin API key of an operator-plan user named `${label}@example.com`. */
  key: string;
  /** Removes the temp folder (a PostgreSQL database goes with the cluster). */
  cleanup(): void;
}

/**
 * A database for another process to use, prepared as boot() would (schema, default
 * organization) with one operator and an admin key; closed again before it is returned.
 */
export async function databaseFileWithKey(label: string): Promise<DatabaseFile> {
  const temp = tempDir(`crew-${label}-`);
  try {
    const dbUrl = await testDatabaseUrl(temp.dir);
    const env = databaseEnv(dbUrl);
    const { db, org } = await prepareDatabase(dbUrl, loadConfig(env), Date.now());
    try {
      const name = label.charAt(0).toUpperCase() + label.slice(1);
      const user = await createUser(
        db,
        { orgId: org.id, email: `${label}@example.com`, name, passwordHash: await testPasswordHash(), plan: "operator", role: "owner" },
        Date.now(),
      );
      const { key, hash } = generateApiKey();
      await insertApiKey(db, { hash, userId: user.id, name: label, scopes: ["admin"] }, Date.now());
      return { dbUrl, env, dir: temp.dir, key, cleanup: temp.cleanup };
    } finally {
      db.close();
    }
  } catch (error) {
    temp.cleanup();
    throw error;
  }
}
