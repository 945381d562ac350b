/**
 * Evidence in MCP results: a record that cites a Crew record readable as a resource (an action)
 * carries a `resource_link` to it for clients of protocol versions that define them, and the same
 * URI in text for every client; 2025-03-26 gets no `resource_link`.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { complete, startRun } from "../helpers/agents.ts";
import { connectHttp, mcpPost } from "../helpers/mcp.ts";
import { client } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let key: string;
let cited: string;
let citing: string;
beforeAll(async () => {
  s = await startServer();
  const made = await client(s, "operator", ["admin"]);
  key = made.key;
  cited = (await made.call("/api/mcp/actions", { body: { title: "Send the contract" } })).json.actionId;
  const run = await startRun(made.call, "sales");
  const done = await complete(made.call, "sales", run.runId, {
    status: "ok",
    summary: "Followed up.",
    actions: [{ title: "Chase the countersignature", evidence: [{ kind: "action", ref: cited, title: "Send the contract" }] }],
  });
  expect(done.status).toBe(200);
  citing = (await made.call("/api/mcp/actions?source=sales")).json.actions[0].id;
});
afterAll(() => s.close());

const kinds = (result: { content: unknown }) => (result.content as { type: string }[]).map((c) => c.type);

describe("evidence as resource links", () => {
  it("a 2025-11-25 client gets a resource_link to the action cited as evidence, and its URI in text", async () => {
    const mcp = await connectHttp(s.url, key);
    try {
      const got = (await mcp.callTool({ name: "crew_list_actions", arguments: { source: "sales" } })) as CallToolResult;
      expect((got.structuredContent as { actions: { id: string }[] }).actions.map((a) => a.id)).toEqual([citing]);
      expect(kinds(got)).toEqual(["text", "text", "resource_link"]);
      expect(got.content[2]).toMatchObject({ type: "resource_link", uri: `crew://actions/${cited}`, name: cited });
      expect((got.content[1] as { text: string }).text).toContain(`crew://actions/${cited}`);
      const read = await mcp.readResource({ uri: `crew://actions/${cited}` });
      expect(JSON.parse((read.contents[0] as { text: string }).text).title).toBe("Send the contract");
    } finally {
      await mcp.close();
    }
  });

  it("a 2025-03-26 request gets the URI in text and no resource_link", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "crew_list_actions", arguments: { source: "sales" } } };
    const old = (await mcpPost(s.url, call, { Authorization: `Bearer ${key}` })).json.result;
    expect(kinds(old)).toEqual(["text", "text"]);
    expect(old.content[1].text).toContain(`crew://actions/${cited}`);
  });
});
