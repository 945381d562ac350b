/**
 * `deno task start` with DATABASE_URL outside ./data (SPEC §1 Runtimes): the task may write to
 * ./data only, so the server says in one line exactly which flag to add, before writing anything.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

/** deno.json's start task as argv; the FFI path resolved, so it also holds where node_modules is a link. */
function startTask(): string[] {
  const task: string = JSON.parse(readFileSync(`${ROOT}deno.json`, "utf8")).tasks.start;
  return task
    .split(/\s+/)
    .map((part) => (part.startsWith("--allow-ffi=") ? `--allow-ffi=${realpathSync(`${ROOT}node_modules/@libsql`)}` : part));
}

describe("issue 11 item 13: the Deno entry and a database outside ./data", () => {
  it("exits with one line naming the --allow-write flag to add, and writes nothing", async () => {
    const temp = tempDir();
    try {
      const [command, ...args] = startTask();
      const child = spawn(command as string, args, {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          DATABASE_URL: `file:${temp.dir}/crew.db`,
          PORT: String(await freePort()),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      const lines = stderr.trim().split("\n");
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toContain(`--allow-write=data,${temp.dir}`);
      expect(readdirSync(temp.dir)).toEqual([]);
    } finally {
      temp.cleanup();
    }
  }, 60_000);
});
