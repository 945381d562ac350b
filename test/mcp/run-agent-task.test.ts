/**
 * Issue 23 item 5: `crew_run_agent` runs an agent now — as a task (io.modelcontextprotocol/tasks)
 * for a 2026-07-28 client that declares the extension, as a plain result for the others; members
 * are refused (the tool is for organization owners).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorJson, mcpPost } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let ownerKey: string;
beforeAll(async () => {
  s = await startServer();
  ({ key: ownerKey } = await s.userWithKey("operator", ["admin"]));
});
afterAll(async () => s.close());

const body = (method: string, params: Record<string, unknown>, extensions?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  params: {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": extensions ? { extensions } : {},
    },
  },
});
const post = (method: string, name: string, params: Record<string, unknown>, extensions?: Record<string, unknown>) =>
  mcpPost(s.url, body(method, params, extensions), {
    Authorization: `Bearer ${ownerKey}`,
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    "Mcp-Name": name,
  });
const TASKS = { "io.modelcontextprotocol/tasks": {} };

describe("crew_run_agent", () => {
  it("is a task for a client declaring the extension: working, then completed with the run's summary and link", async () => {
    const created = await post("tools/call", "crew_run_agent", { name: "crew_run_agent", arguments: { agent: "pulse" } }, TASKS);
    expect(created.json.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.json.result.taskId as string;
    let task: any;
    for (let i = 0; i < 50; i++) {
      task = (await post("tasks/get", taskId, { taskId }, TASKS)).json.result;
      if (task.status !== "working") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(task.status).toBe("completed");
    expect(task.result.structuredContent).toMatchObject({ agentId: "pulse", status: "ok" });
    expect(task.result.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: "crew://agents/pulse/runs" }));
    expect((await post("tasks/cancel", taskId, { taskId }, TASKS)).json.result).toMatchObject({ resultType: "complete" });
  });

  it("refuses tasks/get from a request without the extension (-32021)", async () => {
    const res = await post("tasks/get", "tsk_x", { taskId: "tsk_x" });
    expect(res.json.error.code).toBe(-32021);
  });

  it("answers {runId, status} and the link to a client without the extension (SDK v2 client)", async () => {
    const client = new Client({ name: "v2", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ownerKey}` } } }),
    );
    const result = await client.callTool({ name: "crew_run_agent", arguments: { agent: "pulse" } });
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ agentId: "pulse", status: "ok", runId: expect.stringMatching(/^run_/) });
    expect(result.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: "crew://agents/pulse/runs" }));
  });

  it("sends a URL-elicitation capable client to the model settings when the agent has no model", async () => {
    const request = body("tools/call", { name: "crew_run_agent", arguments: { agent: "sales" } });
    (request.params._meta as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"] = { elicitation: { url: {} } };
    const res = await mcpPost(s.url, request, {
      Authorization: `Bearer ${ownerKey}`,
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "crew_run_agent",
    });
    expect(res.json.result.resultType).toBe("input_required");
    expect(JSON.stringify(res.json.result.inputRequests)).toContain(`${s.url}/settings/model`);
  });

  it("refuses a member with a tool error naming the owner role", async () => {
    const member = await s.createUser("operator", "member@example.com", "member");
    const key = await s.createKey(member, ["admin"]);
    const res = await mcpPost(s.url, body("tools/call", { name: "crew_run_agent", arguments: { agent: "pulse" } }), {
      Authorization: `Bearer ${key}`,
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "crew_run_agent",
    });
    expect(res.json.result.isError).toBe(true);
    expect(errorJson(res.json.result).error).toBe("forbidden");
    expect(errorJson(res.json.result).message).toMatch(/owner/i);
  });
});
