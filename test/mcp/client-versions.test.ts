/**
 * Results depend on the protocol version a request speaks (issue 18 items 14 and 16): the SDK
 * 1.12.3 client (protocol 2025-03-26, installed as the npm alias `mcp-sdk-1-12`) refuses a result
 * holding `resource_link`, which that version does not define; every client finds the linked
 * records named in a text block (LangChain users may drop the link blocks themselves).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Client as Client112 } from "mcp-sdk-1-12/client/index.js";
import { StreamableHTTPClientTransport as Transport112 } from "mcp-sdk-1-12/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, mcpPost, seedStandup } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startServer();
  ({ key } = await s.userWithKey("operator", ["admin"]));
  await seedStandup(s.db, s.org.id, s.clock.now());
});
afterAll(() => s.close());

async function connect112(): Promise<InstanceType<typeof Client112>> {
  const client = new Client112({ name: "sdk-1.12", version: "1.12.3" });
  await client.connect(new Transport112(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

const kinds = (result: { content: unknown }) => (result.content as { type: string }[]).map((c) => c.type);

describe("issue 18 item 14: 2025-03-26 gets only what it defines", () => {
  it("the SDK 1.12 client calls every linking tool without a resource_link and without a client-side failure", async () => {
    const client = await connect112();
    try {
      expect(client.getServerVersion()?.name).toBe("crew");
      const added = (await client.callTool({ name: "crew_add_action", arguments: { title: "From an old client" } })) as CallToolResult;
      expect(added.isError).toBeFalsy();
      expect(kinds(added)).toEqual(["text", "text"]);
      const id = (added.structuredContent as { actionId: string }).actionId;
      expect((added.content[1] as { text: string }).text).toContain(`crew://actions/${id}`);
      for (const [name, args] of [
        ["crew_briefing", {}],
        ["crew_standup", { mode: "latest" }],
        ["crew_company_profile", {}],
        ["crew_agent_status", {}],
        ["crew_update_action", { id, status: "done" }],
      ] as const) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, name).toBeFalsy();
        expect(kinds(result), name).not.toContain("resource_link");
      }
    } finally {
      await client.close();
    }
  });

  it("a raw call without MCP-Protocol-Version is 2025-03-26 (no resource_link); with 2025-06-18 it has them", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "crew_briefing", arguments: {} } };
    const bearer = { Authorization: `Bearer ${key}` };
    expect(kinds((await mcpPost(s.url, call, bearer)).json.result)).toEqual(["text", "text"]);
    const newer = await mcpPost(s.url, call, { ...bearer, "MCP-Protocol-Version": "2025-06-18" });
    expect(kinds(newer.json.result)).toEqual(["text", "text", "resource_link"]);
  });
});

describe("issue 18 item 16: linked records named in text too", () => {
  it("a 2025-11-25 client gets the link and a text block naming the same URI", async () => {
    const client = await connectHttp(s.url, key);
    try {
      const added = (await client.callTool({
        name: "crew_add_action",
        arguments: { actions: [{ title: "A" }, { title: "B" }] },
      })) as CallToolResult;
      const ids = (added.structuredContent as { actionIds: string[] }).actionIds;
      expect(kinds(added)).toEqual(["text", "text", "resource_link", "resource_link"]);
      const named = (added.content[1] as { text: string }).text;
      for (const id of ids) expect(named).toContain(`crew://actions/${id}`);
    } finally {
      await client.close();
    }
  });
});
