/**
 * A real Crew server in its own process (`node --import tsx src/serve.ts`), for tests that need
 * several processes on one database. Ready when GET /readyz answers 200 (polled, never a fixed sleep).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface SpawnedServer {
  url: string;
  port: number;
  pid: number;
  /** SIGTERM and wait for the exit (SIGKILL after 5 s); how it ended (`signal` "SIGKILL" when it had to be killed). */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL at once (a crash: no shutdown of any kind), and wait for the exit. */
  kill(): Promise<void>;
}

/** A port free right now: bound on loopback by the OS, then released for the child to take. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Polls `${url}/readyz` until 200; fails early with the child's stderr when it exits. */
async function waitReady(url: string, child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before ready: ${stderr()}`);
    try {
      const res = await fetch(`${url}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`server at ${url} not ready within ${timeoutMs} ms: ${stderr()}`);
}

/** Starts `src/serve.ts` on a free loopback port with the given environment (PORT, HOST, BASE_URL are set here). */
export async function spawnServer(env: Record<string, string>, timeoutMs = 30_000): Promise<SpawnedServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "src/serve.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "silent", ...env, PORT: String(port), HOST: "127.0.0.1", BASE_URL: url },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited(child);
      clearTimeout(force);
    }
    return { code: child.exitCode, signal: child.signalCode };
  };
  try {
    await waitReady(url, child, () => errors, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited(child);
  };
  return { url, port, pid: child.pid!, stop, kill };
}
