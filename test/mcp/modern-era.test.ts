/**
 * MCP 2026-07-28 beside the 2025 revisions on one `/mcp` (issue 23 items 1, 2): the SDK v2 client
 * pinned to 2026-07-28 discovers, lists, calls, reads, gets prompts and completes; raw requests
 * check `Mcp-Method`/`Mcp-Name` against the body and refuse an unsupported version with the
 * specification's error; lists are private to the credential and in a stable order.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpPost, seedStandup } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let key: string;
const clients: Client[] = [];
beforeAll(async () => {
  s = await startServer();
  ({ key } = await s.userWithKey("operator", ["admin"]));
  await seedStandup(s.db, s.org.id, s.clock.now());
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s.close();
});

async function modernClient(withKey = key): Promise<Client> {
  const client = new Client({ name: "v2-modern", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${withKey}` } } }),
  );
  clients.push(client);
  return client;
}

describe("the SDK v2 client at 2026-07-28", () => {
  it("discovers, lists, calls, reads, gets prompts and completes", async () => {
    const client = await modernClient();
    expect(client.getServerVersion()?.name).toBe("crew");
    expect(client.getInstructions()).toContain("Your plan (operator) includes the write tools too");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("crew_add_action");
    const added = await client.callTool({ name: "crew_add_action", arguments: { title: "From 2026" } });
    expect(added.isError).toBeFalsy();
    const id = (added.structuredContent as { actionId: string }).actionId;
    expect(added.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: `crew://actions/${id}` }));
    const read = await client.readResource({ uri: `crew://actions/${id}` });
    expect(JSON.parse(String((read.contents[0] as { text: string }).text))).toMatchObject({ id, title: "From 2026" });
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain("crew://briefing");
    expect((await client.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
    const prompt = await client.getPrompt({ name: "plan_my_day" });
    expect(prompt.messages[0]?.content.type).toBe("text");
    const done = await client.complete({ ref: { type: "ref/prompt", name: "hand_off" }, argument: { name: "to", value: "sal" } });
    expect(done.completion.values).toEqual(["sales"]);
  });
});

describe("issue 23 item 3: dismissing a critical action is confirmed first", () => {
  it("asks an elicitation-capable client; decline leaves the action, accept dismisses it", async () => {
    const asked: string[] = [];
    let action: "accept" | "decline" = "decline";
    const client = new Client(
      { name: "v2-elicit", version: "2.4.0" },
      { capabilities: { elicitation: { form: {} } } as never, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    client.setRequestHandler("elicitation/create", async (request: any) => {
      asked.push(request.params.message);
      return (action === "accept" ? { action, content: { confirm: true } } : { action }) as never;
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
    );
    clients.push(client);
    const added = await client.callTool({ name: "crew_add_action", arguments: { title: "Renew the certificate", priority: "critical" } });
    const id = (added.structuredContent as { actionId: string }).actionId;

    const declined = await client.callTool({ name: "crew_update_action", arguments: { id, status: "dismissed" } });
    expect(asked).toEqual(['Dismiss the critical action "Renew the certificate"?']);
    expect(JSON.stringify(declined.content)).toContain("Nothing was changed");
    const still = await client.readResource({ uri: `crew://actions/${id}` });
    expect(JSON.parse(String((still.contents[0] as { text: string }).text)).status).toBe("pending");

    action = "accept";
    const dismissed = await client.callTool({ name: "crew_update_action", arguments: { id, status: "dismissed" } });
    expect(dismissed.structuredContent).toMatchObject({ id, status: "dismissed" });
    // A non-critical update is not asked about.
    await client.callTool({ name: "crew_update_action", arguments: { id, priority: "low" } });
    expect(asked).toHaveLength(2);
  });
});

const meta = (method: string) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
  ...(method ? {} : {}),
});
const modern = (method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  params: { ...params, _meta: meta(method) },
});

describe("raw 2026-07-28 requests", () => {
  const headers = (extra: Record<string, string> = {}) => ({
    Authorization: `Bearer ${key}`,
    "MCP-Protocol-Version": "2026-07-28",
    ...extra,
  });

  it("answers server/discover with the versions, capabilities and plan-aware instructions", async () => {
    const res = await mcpPost(s.url, modern("server/discover"), headers({ "Mcp-Method": "server/discover" }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.result.supportedVersions).toContain("2026-07-28");
    expect(res.json.result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(res.json.result.instructions).toContain("Your plan (operator)");
  });

  it("lists tools in a stable order with a private cache hint", async () => {
    const a = await mcpPost(s.url, modern("tools/list"), headers({ "Mcp-Method": "tools/list" }));
    const b = await mcpPost(s.url, modern("tools/list"), headers({ "Mcp-Method": "tools/list" }));
    expect(a.status, a.text).toBe(200);
    expect(a.json.result.cacheScope).toBe("private");
    expect(a.json.result.ttlMs).toBeGreaterThan(0);
    expect(a.json.result.tools.map((t: { name: string }) => t.name)).toEqual(b.json.result.tools.map((t: { name: string }) => t.name));
  });

  it("refuses a missing or mismatched Mcp-Method or Mcp-Name with 400", async () => {
    const call = modern("tools/call", { name: "crew_briefing", arguments: {} });
    const missing = await mcpPost(s.url, call, headers());
    expect(missing.status).toBe(400);
    const wrongMethod = await mcpPost(s.url, call, headers({ "Mcp-Method": "tools/list", "Mcp-Name": "crew_briefing" }));
    expect(wrongMethod.status).toBe(400);
    const noName = await mcpPost(s.url, call, headers({ "Mcp-Method": "tools/call" }));
    expect(noName.status).toBe(400);
    const wrongName = await mcpPost(s.url, call, headers({ "Mcp-Method": "tools/call", "Mcp-Name": "crew_standup" }));
    expect(wrongName.status).toBe(400);
    const right = await mcpPost(s.url, call, headers({ "Mcp-Method": "tools/call", "Mcp-Name": "crew_briefing" }));
    expect(right.status, right.text).toBe(200);
    expect(right.json.result.structuredContent).toBeTruthy();
  });

  it("answers an unsupported version with UnsupportedProtocolVersion naming the supported ones", async () => {
    const body = {
      ...modern("tools/list"),
      params: { _meta: { ...meta("tools/list"), "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
    };
    const res = await mcpPost(s.url, body, headers({ "Mcp-Method": "tools/list", "MCP-Protocol-Version": "2027-01-01" }));
    expect(res.json.error.code).toBe(-32022);
    expect(JSON.stringify(res.json.error.data)).toContain("2026-07-28");
  });

  it("answers an unknown resource with -32602", async () => {
    const res = await mcpPost(
      s.url,
      modern("resources/read", { uri: "crew://nothing" }),
      headers({ "Mcp-Method": "resources/read", "Mcp-Name": "crew://nothing" }),
    );
    expect(res.json.error.code, res.text).toBe(-32602);
  });
});
