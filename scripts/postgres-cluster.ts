/**
 * A throwaway PostgreSQL cluster: `initdb` in a temporary folder, `postgres` on a free loopback
 * port, stopped and removed at the end. Used by `npm run bench -- --scale N --engine postgres`
 * (src/docs/notes/benchmark.md#postgresql) and by the tests' one cluster per run (test/helpers/postgres-cluster.ts).
 *
 * PostgreSQL refuses to run as root, so under root both programs run as the unprivileged
 * `postgres` user (`runuser -u postgres --`), the folder handed to it first. The caller picks the
 * server settings: a benchmark keeps durability on (fsync, synchronous commit) for honest write
 * figures; tests may turn it off since their data dies with the folder.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

/** The superuser `initdb` creates; trust authentication on loopback, so no password. */
export const CLUSTER_USER = "crew";

export interface PostgresCluster {
  /** The superuser's URL on the `postgres` maintenance database (for CREATE/DROP DATABASE). */
  adminUrl: string;
  port: number;
  /** The postmaster's process id (its backends are its children: CPU accounting reads them). */
  pid: number;
  /** Fast shutdown (SIGINT: connections are ended, no waiting for them), then the folder is removed. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** `name=value` server settings passed as `-c` (listen_addresses=127.0.0.1 is always set). */
  settings?: string[];
  timeoutMs?: number;
  /** A file the server's log is appended to (it keeps every failed statement with its text) and kept after the folder goes. */
  logFile?: string;
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

/** A loopback port free right now (the bench's servers take theirs the same way). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
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

/** initdb (≈0.5 s), then a server on a free port; a port taken in between is retried on another. */
export async function startPostgresCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
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
    const settings = ["listen_addresses=127.0.0.1", ...(options.settings ?? [])];
    for (let attempt = 1; ; attempt++) {
      try {
        return await serve(program("postgres"), root, dataDir, settings, remove, options.timeoutMs ?? 30_000, options.logFile);
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
  settings: string[],
  remove: () => void,
  timeoutMs: number,
  logFile: string | undefined,
): Promise<PostgresCluster> {
  const port = await freePort();
  const [command, args] = asOwner(postgresProgram, ["-D", dataDir, "-p", String(port), "-k", root, ...settings.flatMap((s) => ["-c", s])]);
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8000);
    if (logFile) appendFileSync(logFile, chunk);
  });
  const adminUrl = `postgres://${CLUSTER_USER}@127.0.0.1:${port}/postgres`;
  // A process that dies without stopping the cluster must not leave a postmaster behind: immediate shutdown.
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
    pid: postmasterPid(dataDir) ?? child.pid ?? 0,
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
