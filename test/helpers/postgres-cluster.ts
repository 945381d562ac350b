/**
 * A throwaway PostgreSQL cluster for the tests (src/docs/notes/testing.md#two-engines): `initdb` in
 * a temporary folder, `postgres` on a free loopback port, stopped and removed at the end. Tuned for
 * speed, not durability (fsync, synchronous commit and full-page writes off): the data dies with the
 * folder anyway. PostgreSQL refuses to run as root, so under root both programs run as the
 * unprivileged `postgres` user (`runuser`), the folder handed to it first.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "./spawn.ts";

/** The superuser `initdb` creates; trust authentication on loopback, so no password. */
export const CLUSTER_USER = "crew";

export interface PostgresCluster {
  /** The superuser's URL on the `postgres` maintenance database (for CREATE/DROP DATABASE). */
  adminUrl: string;
  port: number;
  /** Fast shutdown (SIGINT: connections are ended, no waiting for them), then the folder is removed. */
  stop(): Promise<void>;
}

/** Debian's layout: /usr/lib/postgresql/<major>/bin, the newest major first; else whatever is on PATH. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], "bin") : null;
}

const asRoot = () => process.getuid?.() === 0;

/** The command line that runs `program` as the cluster's owner: `runuser -u postgres --` under root. */
function asOwner(program: string, args: string[]): [string, string[]] {
  return asRoot() ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
}

function chownTo(path: string, owner: string): void {
  const id = (flag: string) => Number(execFileSync("id", [flag, owner], { encoding: "utf8" }).trim());
  chownSync(path, id("-u"), id("-g"));
}

/** The postmaster's pid, from the first line of postmaster.pid (under root the child is `runuser`, not postgres). */
function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Polls with the `postgres` driver until `SELECT 1` answers; fails early when the server exits. */
async function waitAccepting(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`postgres exited before accepting connections:\n${log()}`);
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`SELECT 1`;
      return;
    } catch {
      // starting up ("the database system is starting up") or not listening yet
    } finally {
      await sql.end({ timeout: 1 });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`postgres did not accept connections within ${timeoutMs} ms:\n${log()}`);
}

/**
 * Speed over durability (the data dies with the folder); room for many test files' connection
 * pools at once; TCP on loopback only (the Unix socket goes to the temp folder, `-k`).
 */
const SETTINGS = ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300", "listen_addresses=127.0.0.1"];

/** initdb (≈0.5 s), then a server on a free port; a port taken in between is retried on another. */
export async function startPostgresCluster(options: { timeoutMs?: number } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const program = (name: string) => (bin ? join(bin, name) : name);
  const root = mkdtempSync(join(tmpdir(), "crew-pg-"));
  const dataDir = join(root, "data");
  mkdirSync(dataDir, { mode: 0o700 });
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    if (asRoot()) {
      chownTo(root, "postgres");
      chownTo(dataDir, "postgres");
    }
    const [initdb, initArgs] = asOwner(program("initdb"), ["-D", dataDir, "-A", "trust", "-U", CLUSTER_USER, "--no-sync", "-E", "UTF8"]);
    execFileSync(initdb, initArgs, { stdio: ["ignore", "pipe", "pipe"], cwd: root });
    for (let attempt = 1; ; attempt++) {
      try {
        return await serve(program("postgres"), root, dataDir, remove, options.timeoutMs ?? 30_000);
      } catch (error) {
        if (attempt >= 3 || !/could not (bind|create listen)/i.test(String(error))) throw error;
      }
    }
  } catch (error) {
    remove();
    throw error;
  }
}

async function serve(
  postgresProgram: string,
  root: string,
  dataDir: string,
  remove: () => void,
  timeoutMs: number,
): Promise<PostgresCluster> {
  const port = await freePort();
  const settings = SETTINGS.flatMap((setting) => ["-c", setting]);
  const [command, args] = asOwner(postgresProgram, ["-D", dataDir, "-p", String(port), "-k", root, ...settings]);
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  // CREW_TEST_POSTGRES_LOG=<file> keeps the server's log (every failed statement with its text) after the folder goes.
  const keep = process.env.CREW_TEST_POSTGRES_LOG;
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8000);
    if (keep) appendFileSync(keep, chunk);
  });
  const adminUrl = `postgres://${CLUSTER_USER}@127.0.0.1:${port}/postgres`;
  // A runner that dies without its teardown must not leave a postmaster behind: immediate shutdown.
  const onExit = () => {
    const pid = postmasterPid(dataDir);
    if (pid) {
      try {
        process.kill(pid, "SIGQUIT");
      } catch {}
    }
  };
  process.once("exit", onExit);
  try {
    await waitAccepting(adminUrl, child, () => log, timeoutMs);
  } catch (error) {
    child.kill("SIGKILL");
    onExit();
    await exited(child);
    process.off("exit", onExit);
    throw error;
  }
  return {
    adminUrl,
    port,
    async stop() {
      process.off("exit", onExit);
      const pid = postmasterPid(dataDir);
      // SIGINT to the postmaster itself is "fast" shutdown (pg_ctl stop -m fast); runuser would forward only SIGTERM ("smart", which waits for clients).
      if (pid) process.kill(pid, "SIGINT");
      else child.kill("SIGINT");
      const force = setTimeout(() => {
        const left = postmasterPid(dataDir);
        if (left) process.kill(left, "SIGQUIT");
      }, 10_000);
      await exited(child);
      clearTimeout(force);
      remove();
    },
  };
}
