/** `crew mcp`: the same tools over stdio, through the SDK's StdioClientTransport spawning the process. */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/random.ts";
import { revokeApiKey } from "../../src/store/auth/api-keys.ts";
import { errorJson, firstText, outputConforms } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const COMMAND = [process.execPath, "bin/crew.js", "mcp"] as const;

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/** The environment of a local client: the database file the test server uses, and the key. */
function env(key: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    DATABASE_URL: s.config.databaseUrl,
    BASE_URL: s.config.baseUrl,
    CREW_SECRET: "test-secret-test-secret-test-secret-00",
    LOG_LEVEL: "error",
    RATE_LIMIT_PER_HOUR: "8",
    CREW_API_KEY: key,
  };
}

async function connectStdio(key: string): Promise<Client> {
  const client = new Client({ name: "crew-stdio-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: COMMAND[0], args: [...COMMAND.slice(1)], cwd: ROOT, env: env(key), stderr: "pipe" }),
  );
  return client;
}

describe("crew mcp (stdio)", () => {
  it("serves the plan's tools as the key's user, with valid structured results, quota and revocation", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const client = await connectStdio(key);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "crew" });
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(16);

      const added = (await client.callTool({ name: "crew_add_action", arguments: { title: "From stdio" } })) as CallToolResult;
      expect(added.isError).toBeFalsy();
      const tool = tools.find((t) => t.name === "crew_add_action");
      expect(tool && outputConforms(tool, added)).toEqual({ valid: true });
      const stored = await s.db.execute({
        sql: "SELECT source, created_by FROM actions WHERE id = ?",
        args: [(added.structuredContent as any).actionId],
      });
      expect(stored.rows[0]).toMatchObject({ source: "mcp", created_by: user.id });

      const bad = (await client.callTool({ name: "crew_add_contact", arguments: { email: "nope" } })) as CallToolResult;
      expect(errorJson(bad).issues.map((i: { path: string }) => i.path)).toEqual(["name", "email"]);

      // Quota: 8 per hour, shared with HTTP. Three used so far (list, two calls).
      for (let i = 0; i < 5; i++) await client.callTool({ name: "crew_agent_status", arguments: {} });
      const spent = (await client.callTool({ name: "crew_agent_status", arguments: {} })) as CallToolResult;
      expect(errorJson(spent)).toMatchObject({ error: "rate_limited" });

      await revokeApiKey(s.db, user.id, sha256Hex(key), s.clock.now());
      const revoked = (await client.callTool({ name: "crew_agent_status", arguments: {} })) as CallToolResult;
      expect(revoked.isError).toBe(true);
      expect(firstText(revoked)).toContain("revoked");
    } finally {
      await client.close();
    }
  });

  it("serves resources, prompts and completions over stdio, read tier only for a pro key, with plan-aware instructions", async () => {
    const { key } = await s.userWithKey("pro", ["read"]);
    const client = await connectStdio(key);
    try {
      expect(client.getInstructions()).toContain("Your plan (pro) includes the read tools");
      expect((await client.listResources()).resources.map((r) => r.uri).sort()).toEqual([
        "crew://agents",
        "crew://briefing",
        "crew://profile",
      ]);
      const { contents } = await client.readResource({ uri: "crew://profile" });
      expect(JSON.parse(String((contents[0] as { text?: string }).text))).toMatchObject({ archetype: "unknown" });
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["plan_my_day", "review_queue", "weekly_review"]);
      const done = await client.complete({
        ref: { type: "ref/resource", uri: "crew://standup/{mode}" },
        argument: { name: "mode", value: "e" },
      });
      expect(done.completion.values).toEqual(["evening"]);
    } finally {
      await client.close();
    }
  });

  it("lists only read tools for a pro key", async () => {
    const { key } = await s.userWithKey("pro", ["read"]);
    const client = await connectStdio(key);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("crew_briefing");
      expect(names).not.toContain("crew_add_action");
      const refused = (await client.callTool({ name: "crew_post_insight", arguments: { title: "x" } })) as CallToolResult;
      expect(errorJson(refused)).toMatchObject({ error: "plan_upgrade_required" });
    } finally {
      await client.close();
    }
  });

  it("exits non-zero with a clear message for an invalid or missing key", async () => {
    for (const key of ["crew_notakey", ""]) {
      const { code, stdout, stderr } = await runToExit(key);
      expect(code).not.toBe(0);
      expect(stderr).toContain("CREW_API_KEY");
      expect(stdout).toBe("");
    }
  });

  it("issue 11 item 15: without DATABASE_URL, in a client's working directory, opens only an existing database and names the path", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const clientDir = mkdtempSync(join(tmpdir(), "crew-client-cwd-"));
    try {
      const { DATABASE_URL: _, CREW_SECRET: __, ...withoutDatabase } = env(key);
      const { code, stdout, stderr } = await runToExit(key, { cwd: clientDir, env: withoutDatabase });
      expect(code).not.toBe(0);
      expect(stdout).toBe("");
      expect(stderr).toContain(join(realpathSync(clientDir), "data", "crew.db"));
      expect(stderr).toMatch(/no Crew database found .*DATABASE_URL is not set/);
      expect(readdirSync(clientDir)).toEqual([]); // no data/ folder, no database, no secret
      const named = await runToExit(key, { cwd: clientDir, env: { ...withoutDatabase, DATABASE_URL: "file:elsewhere/crew.db" } });
      expect(named.code).not.toBe(0);
      expect(named.stderr).toContain(`DATABASE_URL names ${join(realpathSync(clientDir), "elsewhere", "crew.db")}`);
      expect(readdirSync(clientDir)).toEqual([]);
    } finally {
      rmSync(clientDir, { recursive: true, force: true });
    }
  });

  it("exits 0 when the client closes stdin", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const { code, stdout } = await runToExit(key);
    expect(code).toBe(0);
    expect(stdout).toBe("");
  });
});

/** Spawns the server with stdin closed at once, and collects its exit. */
async function runToExit(
  key: string,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(COMMAND[0], [`${ROOT}bin/crew.js`, ...COMMAND.slice(2)], {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? env(key),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d) => (stdout += d));
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr };
}
