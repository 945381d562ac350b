/**
 * Audit of `/mcp` against what real clients send: Claude Code's `Accept: application/json`, the
 * connector proxy's `Accept: text/event-stream`, the three protocol versions with and without the
 * header, a newer client's header on initialize, 2025-03-26 batches, oversized arguments, and
 * `Origin: null`.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INIT, mcpPost } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let bearer: Record<string, string>;
let key: string;
beforeAll(async () => {
  s = await startServer();
  ({ key } = await s.userWithKey("operator", ["admin"]));
  bearer = { Authorization: `Bearer ${key}` };
});
afterAll(() => s.close());

const ping = { jsonrpc: "2.0", id: 7, method: "ping" };
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const initAt = (version: string) => ({ ...INIT, params: { ...INIT.params, protocolVersion: version } });

/** A POST without any Accept header (fetch always adds one). */
function postWithoutAccept(body: unknown): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.url}/mcp`,
      { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The SDK client, with every request's Accept header replaced as a given real client sends it. */
async function clientSending(accept: string): Promise<Client> {
  const rewrite: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("accept", accept);
    return fetch(input, { ...init, headers });
  };
  const client = new Client({ name: `accept ${accept}`, version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: bearer }, fetch: rewrite }));
  return client;
}

describe("Accept as real clients send it", () => {
  it("answers JSON to application/json alone (Claude Code), */* and no Accept at all", async () => {
    for (const accept of ["application/json", "*/*", "application/*;q=0.9"]) {
      const res = await mcpPost(s.url, ping, { ...bearer, Accept: accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.json).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    }
    const bare = await postWithoutAccept(ping);
    expect(bare.status).toBe(200);
    expect(JSON.parse(bare.text)).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });

  it("answers one finished SSE stream to text/event-stream alone (the connector proxy)", async () => {
    const res = await mcpPost(s.url, ping, { ...bearer, Accept: "text/event-stream" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const data = res.text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)));
    expect(data).toEqual([{ jsonrpc: "2.0", id: 7, result: {} }]);
  });

  it("refuses, with 406, only an Accept that takes neither", async () => {
    for (const accept of ["text/html", "application/json;q=0, text/plain"]) {
      const res = await mcpPost(s.url, ping, { ...bearer, Accept: accept });
      expect(res.status, accept).toBe(406);
      expect(res.json.error.message).toContain("application/json");
    }
  });

  it.each(["application/json", "text/event-stream"])("lets the SDK client work end to end sending only %s", async (accept) => {
    const client = await clientSending(accept);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("crew_add_action");
    const result = await client.callTool({ name: "crew_agent_status", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { total: number }).total).toBe(17);
    await client.close();
  });
});

describe("protocol versions", () => {
  it.each(["2025-03-26", "2025-06-18", "2025-11-25"])("initializes at %s, then works with the header and without it", async (version) => {
    const init = await mcpPost(s.url, initAt(version), bearer);
    expect(init.json.result.protocolVersion).toBe(version);
    const withHeader = await mcpPost(s.url, listTools, { ...bearer, "MCP-Protocol-Version": version });
    expect(withHeader.status).toBe(200);
    expect(withHeader.json.result.tools).toHaveLength(16);
    expect((await mcpPost(s.url, listTools, bearer)).status).toBe(200);
  });

  it("negotiates an initialize whose header names a version Crew does not speak, and refuses it elsewhere", async () => {
    for (const version of ["2026-06-30", "2024-11-05"]) {
      const init = await mcpPost(s.url, initAt(version), { ...bearer, "MCP-Protocol-Version": version });
      expect(init.status, version).toBe(200);
      expect(init.json.result.protocolVersion).toBe("2025-11-25");
      const other = await mcpPost(s.url, listTools, { ...bearer, "MCP-Protocol-Version": version });
      expect(other.status, version).toBe(400);
      expect(other.json.error.message).toContain(version);
    }
  });

  it("answers a 2025-03-26 batch with one response per request, in an array", async () => {
    const res = await mcpPost(s.url, [listTools, ping, { jsonrpc: "2.0", method: "notifications/initialized" }], {
      ...bearer,
      "MCP-Protocol-Version": "2025-03-26",
    });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    expect(res.json.map((r: { id: number }) => r.id).sort()).toEqual([2, 7]);
  });
});

describe("arguments and origins", () => {
  it("answers arguments over the body limit with 413, and a long field with a tool error naming it", async () => {
    const call = (title: string) => ({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "crew_add_action", arguments: { title } },
    });
    const huge = await mcpPost(s.url, call("x".repeat(300 * 1024)), bearer);
    expect(huge.status).toBe(413);
    const long = await mcpPost(s.url, call("x".repeat(100 * 1024)), bearer);
    expect(long.status).toBe(200);
    expect(long.json.result.isError).toBe(true);
    expect(JSON.parse(long.json.result.content[1].text).issues).toEqual([{ path: "title", message: "Must be at most 200 characters." }]);
  });

  it("refuses Origin: null (a sandboxed or file page) like any foreign origin", async () => {
    const res = await mcpPost(s.url, INIT, { ...bearer, Origin: "null" });
    expect(res.status).toBe(403);
    expect(res.json.error).toBe("forbidden");
  });
});
