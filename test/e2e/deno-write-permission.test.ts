/**
 * Issue 18 item 26 (src/docs/notes/runtimes.md Runtimes): the documented `deno task start` works for any database
 * path, as `npm start` does: with DATABASE_URL outside ./data it starts, answers, and writes the
 * database (and the generated secret) in that folder. (It used to exit asking for another flag.)
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT, startRuntime } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

/** deno.json's start task as argv, exactly as documented; the FFI path resolved, so it also holds where node_modules is a link. */
function startTask(): string[] {
  const task: string = JSON.parse(readFileSync(`${ROOT}deno.json`, "utf8")).tasks.start;
  return task
    .split(/\s+/)
    .map((part) => (part.startsWith("--allow-ffi=") ? `--allow-ffi=${realpathSync(`${ROOT}node_modules/@libsql`)}` : part));
}

describe("issue 18 item 26: deno task start with a database outside ./data", () => {
  it("starts, answers /readyz and keeps the database and its secret in DATABASE_URL's folder", async () => {
    const temp = tempDir();
    try {
      const [command, ...args] = startTask();
      const port = await freePort();
      const server = await startRuntime(command as string, args, { DATABASE_URL: `file:${temp.dir}/crew.db`, PORT: String(port) }, 60_000);
      try {
        expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      expect(existsSync(`${temp.dir}/crew.db`)).toBe(true);
      expect(existsSync(`${temp.dir}/crew-secret`)).toBe(true);
    } finally {
      temp.cleanup();
    }
  }, 120_000);
});
