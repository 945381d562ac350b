/**
 * `npm start` as a user runs it: the bundled entry (scripts/start.mjs, built on demand) serves,
 * and a SIGTERM to the npm process stops the server too (issue 11 item 8, src/docs/notes/operating.md).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempDir();
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  tmp.cleanup();
});

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/** Polls until `probe` says yes; the cap only guards against a hang (no timing is asserted). */
async function until(probe: () => Promise<boolean>, capMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + capMs;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

const answers = async (url: string) => {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
};

describe("npm start", () => {
  it("issue 11 item 8: a SIGTERM to the npm start process stops the server, no orphan left listening", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const npm = spawn("npm", ["start"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: base,
        DATABASE_URL: `file:${tmp.dir}/crew.db`,
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(npm);
    let output = "";
    npm.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    npm.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    expect(await until(() => answers(`${base}/healthz`)), output).toBe(true);
    expect(output).toContain(`Crew is listening on ${base}`);
    // The server is npm's child (the script execs node), not a grandchild behind a shell.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    npm.kill("SIGTERM");
    await exited(npm);
    expect(await until(async () => !(await answers(`${base}/healthz`)))).toBe(true);
    // Still refused a moment later: nothing left to answer on the port.
    const refused = await fetch(`${base}/healthz`).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);
  }, 90_000);

  it("issue 33: the first start says what it is doing before it builds", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // A bundle of its own inside the checkout (it resolves node_modules from there), built from scratch.
    const bundleDir = join(ROOT, "dist", `first-start-${process.pid}`);
    rmSync(bundleDir, { recursive: true, force: true });
    try {
      const npm = spawn("npm", ["start"], {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: "127.0.0.1",
          BASE_URL: base,
          DATABASE_URL: `file:${tmp.dir}/first-start.db`,
          CREW_START_BUNDLE: join(bundleDir, "serve.mjs"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(npm);
      let output = "";
      let preparedBeforeBundle = false;
      for (const stream of [npm.stdout, npm.stderr]) {
        stream?.on("data", (chunk: Buffer) => {
          if (!output.includes("Preparing Crew") && chunk.toString().includes("Preparing Crew")) {
            preparedBeforeBundle = !existsSync(join(bundleDir, "serve.mjs"));
          }
          output += chunk.toString();
        });
      }
      expect(await until(() => answers(`${base}/healthz`), 180_000), output).toBe(true);
      expect(output).toContain("Preparing Crew (first start: about 15 s)…");
      expect(preparedBeforeBundle).toBe(true);
      expect(output.indexOf("Preparing Crew")).toBeLessThan(output.indexOf(`Crew is listening on ${base}`));
      npm.kill("SIGTERM");
      await exited(npm);
    } finally {
      rmSync(bundleDir, { recursive: true, force: true });
    }
  }, 240_000);
});
