/**
 * `crew mcp` serves both eras from the one factory (src/mcp/server.ts) through the SDK's stdio
 * entry, which pins the era the client opens with: the SDK v2 client pinned to 2026-07-28 opens
 * with `server/discover` and gets the same tools, with the `resource_link`s of that revision,
 * acting as the key's user.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("crew mcp (stdio) at 2026-07-28", () => {
  it("discovers, lists and calls as the key's user", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const client = new Client({ name: "v2-stdio", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["bin/crew.js", "mcp"],
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          DATABASE_URL: s.config.databaseUrl,
          BASE_URL: s.config.baseUrl,
          CREW_SECRET: "test-secret-test-secret-test-secret-00",
          LOG_LEVEL: "error",
          CREW_API_KEY: key,
        },
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe("crew");
      expect(client.getInstructions()).toContain("Your plan (operator) includes the write tools too");
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(16);
      const added = await client.callTool({ name: "crew_add_action", arguments: { title: "From stdio at 2026" } });
      expect(added.isError).toBeFalsy();
      const id = (added.structuredContent as { actionId: string }).actionId;
      expect(added.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: `crew://actions/${id}` }));
      const stored = await s.db.execute({ sql: "SELECT created_by FROM actions WHERE id = ?", args: [id] });
      expect(stored.rows[0]).toMatchObject({ created_by: user.id });
    } finally {
      await client.close();
    }
  });
});
