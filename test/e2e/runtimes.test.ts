/**
 * src/docs/notes/running.md Runtimes: the same src/ serves on Node (`npm start`'s command), Deno (deno.json's
 * `start` task) and Bun (`bun run src/serve.bun.ts`). Each gets its own port and database file
 * with a user and key made beforehand, answers an authenticated read and write, and exits 0 on
 * SIGTERM.
 */
import { describe, expect, it } from "vitest";
import { databaseFileWithKey, denoStartCommand, ROOT, startRuntime } from "../helpers/cli.ts";
import { api } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

const runtimes: { name: string; command: (dir: string) => { command: string; args: string[] } }[] = [
  { name: "Node", command: () => ({ command: process.execPath, args: ["--import", "tsx", "src/serve.ts"] }) },
  { name: "Deno", command: (dir) => denoStartCommand(dir) },
  { name: "Bun", command: () => ({ command: `${ROOT}node_modules/.bin/bun`, args: ["run", "src/serve.bun.ts"] }) },
];

describe.each(runtimes)("$name", ({ command }) => {
  it("serves an authenticated read and write, and exits 0 on SIGTERM", async () => {
    const { dbUrl, dir, key, cleanup } = await databaseFileWithKey("runtime");
    const port = await freePort();
    const { command: bin, args } = command(dir);
    const server = await startRuntime(bin, args, {
      DATABASE_URL: dbUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      CREW_SECRET: "runtime-test-secret-runtime-test-secret",
    });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      const call = api(server.url, key);
      const agents = await call("/api/mcp/agents");
      expect(agents.status).toBe(200);
      expect(agents.json.total).toBe(17);
      expect(agents.headers.get("api-version")).toBe("1.0.0");
      const created = await call("/api/mcp/actions", { body: { title: "Ship it", priority: "high" } });
      expect(created.status).toBe(200);
      expect(created.json).toEqual({ ok: true, actionId: expect.stringMatching(/^act_/) });
      const listed = await call("/api/mcp/actions");
      expect(listed.json.actions.map((a: { id: string }) => a.id)).toEqual([created.json.actionId]);
    } finally {
      const code = await server.stop();
      cleanup();
      expect(code).toBe(0);
    }
  });
});
