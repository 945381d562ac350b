/** The MCP tools through the SDK's own Client over Streamable HTTP, as an MCP client sees them. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { revokeGrant } from "../../src/store/oauth/grants.ts";
import {
  connectHttp,
  errorJson,
  firstText,
  mcpPost,
  oauthAccessToken,
  outputConforms,
  seedStandup,
  toolArguments,
} from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const READ_TOOLS = ["crew_agent_status", "crew_standup", "crew_briefing", "crew_suggestions", "crew_company_profile", "crew_list_actions"];
const WRITE_TOOLS = [
  "crew_add_action",
  "crew_update_action",
  "crew_update_suggestion",
  "crew_add_contact",
  "crew_create_handoff",
  "crew_post_insight",
  "crew_find_time",
  "crew_calendar_create",
  "crew_run_agent",
  "crew_trigger_agent",
];

let s: TestServer;
let admin: Client;
let adminTools: Tool[];
const clients: Client[] = [];

async function client(key: string): Promise<Client> {
  const c = await connectHttp(s.url, key);
  clients.push(c);
  return c;
}

const call = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

beforeAll(async () => {
  s = await startServer();
  await seedStandup(s.db, s.org.id, s.clock.now());
  const { key } = await s.userWithKey("operator", ["admin"]);
  admin = await client(key);
  adminTools = (await admin.listTools()).tools;
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s.close();
});

describe("initialize", () => {
  it("negotiates the latest protocol version and names Crew with tools and logging", () => {
    expect(admin.getServerVersion()).toMatchObject({ name: "crew", version: "1.0.0" });
    expect(admin.getServerCapabilities()).toMatchObject({ tools: { listChanged: false }, logging: {} });
    expect(admin.getInstructions()).toContain("crew_briefing");
  });

  it("answers ping and logging/setLevel", async () => {
    expect(await admin.ping()).toEqual({});
    expect(await admin.setLoggingLevel("warning")).toEqual({});
  });
});

describe("tools/list", () => {
  it("gives an operator admin key every tool, each with object input and output schemas and annotations", () => {
    expect(adminTools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    for (const tool of adminTools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.annotations).toMatchObject({ title: tool.title, readOnlyHint: expect.any(Boolean), openWorldHint: expect.any(Boolean) });
    }
    const add = adminTools.find((t) => t.name === "crew_add_action");
    expect(Object.keys(add?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["title", "priority", "actions"]));
    expect(add?.inputSchema).not.toHaveProperty("anyOf");
  });

  it("gives a pro read key the read tools only", async () => {
    const { key } = await s.userWithKey("pro", ["read"]);
    const { tools } = await (await client(key)).listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
  });

  it("gives a narrow briefing key only crew_briefing, and a lite user nothing", async () => {
    const { key } = await s.userWithKey("pro", ["briefing"]);
    expect((await (await client(key)).listTools()).tools.map((t) => t.name)).toEqual(["crew_briefing"]);
    const lite = await s.createUser("lite");
    const liteKey = await s.createKey(lite, ["read"]);
    expect((await (await client(liteKey)).listTools()).tools).toEqual([]);
  });

  it("caps an operator's read key at the read tools", async () => {
    const { key } = await s.userWithKey("operator", ["read"]);
    expect((await (await client(key)).listTools()).tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
  });
});

describe("OAuth access tokens", () => {
  it("filter and authorize tools by crew:read / crew:write, capped by the plan, and stop at a revoked grant", async () => {
    const operator = await s.createUser("operator");
    const read = await oauthAccessToken(s.db, s.url, operator.id, ["crew:read"], s.clock.now());
    const reader = await client(read.token);
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
    const refused = await call(reader, "crew_add_contact", { name: "Grace" });
    expect(errorJson(refused)).toMatchObject({ error: "insufficient_scope", required_scope: "crew:write" });

    const write = await oauthAccessToken(s.db, s.url, operator.id, ["crew:write"], s.clock.now());
    expect((await (await client(write.token)).listTools()).tools).toHaveLength(READ_TOOLS.length + WRITE_TOOLS.length);

    const pro = await s.createUser("pro");
    const capped = await oauthAccessToken(s.db, s.url, pro.id, ["crew:write"], s.clock.now());
    expect((await (await client(capped.token)).listTools()).tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());

    await revokeGrant(s.db, read.grantId, s.clock.now());
    const after = await mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { Authorization: `Bearer ${read.token}` });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("tools/call", () => {
  it("runs every tool but the calendar ones, with structuredContent matching its outputSchema and a JSON text block", async () => {
    const first = await call(admin, "crew_add_action", { title: "Seed action" });
    const actionId = (first.structuredContent as { actionId: string }).actionId;
    const suggestion = { id: "sug_tools_test", orgId: s.org.id, agentId: "growth", runId: null, title: "Raise prices", detail: "" };
    await s.db.execute(suggestionInsertStatement({ ...suggestion, priority: "medium", createdAt: s.clock.now() }));
    const args = toolArguments(actionId, suggestion.id);
    for (const tool of adminTools) {
      if (tool.name === "crew_find_time" || tool.name === "crew_calendar_create") continue;
      // Needs a connected model to start a run: test/connections/trigger.test.ts calls it with one.
      if (tool.name === "crew_trigger_agent") continue;
      const result = await call(admin, tool.name, args[tool.name]);
      expect(result.isError, `${tool.name}: ${firstText(result)}`).toBeFalsy();
      expect(outputConforms(tool, result), tool.name).toEqual({ valid: true });
      expect(JSON.parse(firstText(result)), tool.name).toEqual(result.structuredContent);
    }
  });

  it("stores actions from MCP with source mcp, one or a batch, and lists them", async () => {
    const one = await call(admin, "crew_add_action", { title: "Prepare board deck", priority: "critical" });
    expect(one.structuredContent).toEqual({ ok: true, actionId: expect.stringMatching(/^act_/) });
    const batch = await call(admin, "crew_add_action", { actions: [{ title: "A" }, { title: "B", priority: "low" }] });
    expect(batch.structuredContent).toEqual({ ok: true, actionIds: [expect.stringMatching(/^act_/), expect.stringMatching(/^act_/)] });
    const list = await call(admin, "crew_list_actions", { limit: 100 });
    const actions = (list.structuredContent as { actions: { id: string; source: string }[] }).actions;
    const ours = actions.filter((a) => [(one.structuredContent as { actionId: string }).actionId].includes(a.id));
    expect(ours).toEqual([expect.objectContaining({ source: "mcp" })]);
  });

  it("lists every bad field of invalid arguments in a tool error", async () => {
    const result = await call(admin, "crew_add_action", { actions: [{ title: "ok" }, { title: "", priority: "urgent" }] });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(firstText(result)).toContain("actions[1].title");
    expect(errorJson(result)).toMatchObject({
      error: "invalid_request",
      issues: [
        { path: "actions[1].title", message: "Must not be empty." },
        { path: "actions[1].priority", message: "Must be one of critical, high, medium, low." },
      ],
    });
    const unknown = await call(admin, "crew_standup", { mode: "noon", extra: 1 });
    expect(errorJson(unknown).issues.map((i: { path: string }) => i.path)).toEqual(["mode", "extra"]);
  });

  it("refuses a tool outside the key's scope or the user's plan with a tool error naming what is needed", async () => {
    const { key } = await s.userWithKey("pro", ["read"]);
    const pro = await client(key);
    const plan = await call(pro, "crew_add_action", { title: "Nope" });
    expect(plan.isError).toBe(true);
    expect(errorJson(plan)).toMatchObject({ error: "plan_upgrade_required" });
    expect(firstText(plan)).toContain("operator");

    const { key: readKey } = await s.userWithKey("operator", ["read"]);
    const scoped = await call(await client(readKey), "crew_post_insight", { title: "Nope" });
    expect(errorJson(scoped)).toMatchObject({ error: "insufficient_scope", required_scope: "admin" });
    expect(firstText(scoped)).toContain("admin");

    const { key: agentsKey } = await s.userWithKey("pro", ["agents"]);
    const narrow = await call(await client(agentsKey), "crew_briefing");
    expect(errorJson(narrow)).toMatchObject({ error: "insufficient_scope", required_scope: "briefing" });
  });

  it("turns a handler's ApiError into a tool error with its code", async () => {
    const missing = await call(admin, "crew_update_action", { id: "act_missing", status: "done" });
    expect(missing.isError).toBe(true);
    expect(errorJson(missing)).toMatchObject({ error: "not_found", request_id: expect.stringMatching(/^req_/) });
    const evening = await call(admin, "crew_standup", { mode: "evening" });
    expect(errorJson(evening)).toMatchObject({ error: "not_found" });
  });

  it("answers the calendar tools with how to connect a calendar until one is connected", async () => {
    for (const name of ["crew_find_time", "crew_calendar_create"]) {
      const result = await call(admin, name, toolArguments("")[name]);
      expect(result.isError).toBe(true);
      expect(errorJson(result)).toMatchObject({ error: "calendar_not_connected" });
      expect(firstText(result)).toContain("/api/integrations/calendar");
    }
    // Connected (a row of the later calendar integration): past the "how to connect" error.
    const me = await s.createUser("operator");
    await s.db.execute({
      sql: "INSERT INTO integrations (user_id, kind, config, created_at, updated_at) VALUES (?, 'calendar', '{}', 0, 0)",
      args: [me.id],
    });
    const connected = await call(await client(await s.createKey(me, ["admin"])), "crew_find_time", { durationMinutes: 30 });
    expect(errorJson(connected).error).not.toBe("calendar_not_connected");

    const bad = await call(admin, "crew_calendar_create", { title: "x", start: "2026-11-23T11:00:00Z", end: "2026-11-23T10:00:00Z" });
    expect(errorJson(bad).issues).toEqual([{ path: "end", message: "end must be after start." }]);
    const badFind = await call(admin, "crew_find_time", { durationMinutes: 2, timeZone: "Mars/Base", workingHours: { start: "9am" } });
    expect(errorJson(badFind).issues.map((i: { path: string }) => i.path)).toEqual([
      "durationMinutes",
      "workingHours.start",
      "workingHours.end",
      "timeZone",
    ]);
  });

  it("rejects an unknown tool as a protocol error", async () => {
    await expect(call(admin, "crew_nope")).rejects.toThrow(/Unknown tool/);
  });
});
