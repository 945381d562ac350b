/**
 * Issue 35 item 3 (SPEC §25): the read-only endpoint (`/mcp/readonly`, `X-MCP-Readonly: true`) and
 * toolsets (`/mcp/x/{toolset}`, `X-MCP-Toolsets`) list and allow only their tools, in both eras,
 * with an API key and with an OAuth token; a tool outside the view is a tool error that changes
 * nothing; an unknown toolset is a 400; each view path is an OAuth resource of its own.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorJson, INIT, mcpPost, oauthAccessToken } from "../helpers/mcp.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let key: string;
let token: string;
let userId: string;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  s = await startServer();
  const made = await s.userWithKey("operator", ["admin"]);
  key = made.key;
  userId = made.user.id;
  ({ token } = await oauthAccessToken(s.db, s.config.baseUrl, userId, ["crew:read", "crew:write"], s.clock.now()));
});
afterAll(async () => {
  for (const close of closers) await close();
  await s?.close();
});

async function legacy(path: string, bearer: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "v1", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(s.url + path), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}`, ...headers } },
    }),
  );
  closers.push(() => client.close());
  return client;
}

async function modern(path: string, bearer: string, headers: Record<string, string> = {}): Promise<ModernClient> {
  const client = new ModernClient({ name: "v2", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(
    new ModernTransport(new URL(s.url + path), { requestInit: { headers: { Authorization: `Bearer ${bearer}`, ...headers } } }),
  );
  closers.push(() => client.close());
  return client;
}

const READ_ONLY = [
  "crew_briefing",
  "crew_standup",
  "crew_suggestions",
  "crew_company_profile",
  "crew_agent_status",
  "crew_list_actions",
  "crew_find_time",
];
const ACTIONS = ["crew_list_actions", "crew_add_action", "crew_update_action", "crew_create_handoff"];

const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();
const actionCount = async () => (await api(s.url, key)("/api/mcp/actions")).json.actions.length as number;

describe("the read-only endpoint", () => {
  const ways: [string, string, Record<string, string>][] = [
    ["/mcp/readonly", "/mcp/readonly", {}],
    ["X-MCP-Readonly: true", "/mcp", { "X-MCP-Readonly": "true" }],
  ];
  for (const [what, path, headers] of ways) {
    for (const [credential, bearer] of [
      ["a key", () => key],
      ["an OAuth token", () => token],
    ] as const) {
      it(`${what} with ${credential}: lists only read-only tools and refuses a write in both eras`, async () => {
        const before = await actionCount();
        const v1 = await legacy(path, bearer(), headers);
        expect(names((await v1.listTools()).tools)).toEqual([...READ_ONLY].sort());
        const refused = (await v1.callTool({ name: "crew_add_action", arguments: { title: "Should not exist" } })) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(errorJson(refused).error).toBe("tool_not_offered");
        expect(errorJson(refused).message).toContain("read-only");

        const v2 = await modern(path, bearer(), headers);
        expect(names((await v2.listTools()).tools)).toEqual([...READ_ONLY].sort());
        const refused2 = await v2.callTool({ name: "crew_add_action", arguments: { title: "Should not exist" } });
        expect(refused2.isError).toBe(true);
        expect((await v2.callTool({ name: "crew_briefing", arguments: {} })).isError).toBeFalsy();
        expect(await actionCount()).toBe(before);
      });
    }
  }
});

describe("toolsets", () => {
  it("/mcp/x/actions lists and allows only the actions toolset (key and OAuth, both eras)", async () => {
    for (const bearer of [key, token]) {
      const v1 = await legacy("/mcp/x/actions", bearer);
      expect(names((await v1.listTools()).tools)).toEqual([...ACTIONS].sort());
      const refused = (await v1.callTool({ name: "crew_briefing", arguments: {} })) as CallToolResult;
      expect(errorJson(refused).error).toBe("tool_not_offered");
      expect(errorJson(refused).message).toContain("briefing toolset");
      const v2 = await modern("/mcp/x/actions", bearer);
      expect(names((await v2.listTools()).tools)).toEqual([...ACTIONS].sort());
      expect((await v2.callTool({ name: "crew_add_action", arguments: { title: "In the actions toolset" } })).isError).toBeFalsy();
    }
  });

  it("X-MCP-Toolsets narrows to the named toolsets, and with read-only to their read tools", async () => {
    const v1 = await legacy("/mcp", key, { "X-MCP-Toolsets": "calendar, contacts" });
    expect(names((await v1.listTools()).tools)).toEqual(["crew_add_contact", "crew_calendar_create", "crew_find_time"]);
    const both = await modern("/mcp/x/calendar/readonly", key);
    expect(names((await both.listTools()).tools)).toEqual(["crew_find_time"]);
    const narrowed = await legacy("/mcp/x/actions", key, { "X-MCP-Toolsets": "actions,agents", "X-MCP-Readonly": "true" });
    expect(names((await narrowed.listTools()).tools)).toEqual(["crew_list_actions"]);
  });

  it("refuses an unknown toolset or readonly value with 400, naming the toolsets", async () => {
    const headers = { Authorization: `Bearer ${key}` };
    const path = await mcpPost(s.url, INIT, headers, "/mcp/x/everything");
    expect(path.status).toBe(400);
    expect(path.text).toContain("briefing, actions, contacts, calendar, agents");
    const header = await mcpPost(s.url, INIT, { ...headers, "X-MCP-Toolsets": "actions,secrets" });
    expect(header.status).toBe(400);
    expect(header.json.message).toContain('"secrets"');
    expect((await mcpPost(s.url, INIT, { ...headers, "X-MCP-Readonly": "yes" })).status).toBe(400);
  });
});

describe("OAuth on the view endpoints", () => {
  it("challenges with the view's own protected-resource metadata, whose resource is the view's URL", async () => {
    const res = await mcpPost(s.url, INIT, {}, "/mcp/readonly");
    expect(res.status).toBe(401);
    const metadata = `${s.config.baseUrl}/.well-known/oauth-protected-resource/mcp/readonly`;
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${metadata}"`);
    const doc = await fetch(`${s.url}/.well-known/oauth-protected-resource/mcp/readonly`);
    expect(doc.status).toBe(200);
    expect((await doc.json()).resource).toBe(`${s.config.baseUrl}/mcp/readonly`);
    const toolset = await fetch(`${s.url}/.well-known/oauth-protected-resource/mcp/x/actions`);
    expect((await toolset.json()).resource).toBe(`${s.config.baseUrl}/mcp/x/actions`);
  });

  it("accepts a token issued for a view's URL, which is the one audience Crew is", async () => {
    const bound = await oauthAccessToken(s.db, s.config.baseUrl, userId, ["crew:read"], s.clock.now(), `${s.config.baseUrl}/mcp/x/actions`);
    const client = await legacy("/mcp/x/actions", bound.token);
    expect(names((await client.listTools()).tools)).toEqual(["crew_list_actions"]);
  });
});
