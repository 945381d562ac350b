/**
 * The single executable (src/docs/notes/operating.md "One file to run"): built with `npm run build:binary`'s script
 * into a temp folder that has no node_modules, then run from there: `--version`, the CLI writing a
 * user and key, `serve`, and one authenticated request with that key.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/lib/version.ts";
import { ROOT } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

const tmp = tempDir("crew-binary-");
const binary = join(tmp.dir, "crew");
let server: ChildProcess | null = null;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}, cwd = tmp.dir): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // Only PATH and HOME from this process: no NODE_PATH, no Crew variables leak in.
    const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? "", HOME: tmp.dir, LOG_LEVEL: "silent", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  const built = await run(join(ROOT, "node_modules/.bin/bun"), ["scripts/build-binary.ts", "--outfile", binary], {}, ROOT);
  expect(built.stderr).toBe("");
  expect(built.code).toBe(0);
}, 240_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((resolve) => server?.once("exit", resolve));
  }
  tmp.cleanup();
});

describe("the single executable", () => {
  it("issue 11 item 14: crew --version prints the release, equal to package.json's version", async () => {
    expect(existsSync(join(tmp.dir, "node_modules"))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const ran = await run(binary, ["--version"]);
    expect(ran).toMatchObject({ code: 0, stdout: `crew ${pkg.version}\n` });
    console.log(`single executable: ${(statSync(binary).size / 1e6).toFixed(1)} MB`);
  });

  it("runs the CLI and serves an authenticated request from a folder without node_modules", async () => {
    const env = { DATABASE_URL: "file:data/crew.db" };
    const user = await run(
      binary,
      ["user", "create", "--email", "bin@example.com", "--password", "binary password", "--plan", "operator"],
      env,
    );
    expect(user.code).toBe(0);
    const key = await run(binary, ["key", "create", "--email", "bin@example.com", "--name", "bin", "--scopes", "read"], env);
    expect(key.code).toBe(0);
    const raw = key.stdout.trim();
    expect(raw).toMatch(/^crew_/);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    server = spawn(binary, ["serve"], {
      cwd: tmp.dir,
      env: { PATH: process.env.PATH ?? "", HOME: tmp.dir, LOG_LEVEL: "silent", ...env, PORT: String(port), BASE_URL: url },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    server.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    let ready = false;
    while (!ready) {
      if (server.exitCode !== null) throw new Error(`binary serve exited ${server.exitCode}: ${stderr}`);
      ready = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    console.log(`single executable: first /healthz 200 after ${Math.round(performance.now() - started)} ms`);

    const anonymous = await fetch(`${url}/api/mcp/standup`);
    expect(anonymous.status).toBe(401);
    const authorized = await fetch(`${url}/api/mcp/standup`, { headers: { authorization: `Bearer ${raw}` } });
    expect(authorized.status).toBe(200);
    expect(await authorized.json()).toHaveProperty("mode");

    // schema.sql and the notes of /docs travel inside the file.
    expect((await fetch(`${url}/docs/notes/operating`)).status).toBe(200);

    server.kill("SIGTERM");
    const code = await new Promise((resolve) => server?.once("exit", resolve));
    expect(code).toBe(0);
  }, 60_000);
});
