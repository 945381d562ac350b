/**
 * Issue 23 item 6 over real HTTP: per-request state is never shared between callers. A
 * cancellation that reaches `/mcp` before its request stops that request of the same credential
 * (nothing stored), not another credential's request with the same id; `logging/setLevel` is
 * acknowledged without becoming anyone's shared level (2025 era: each request has its own server
 * from the one factory, so a level is kept on that request's server only), and is no method at
 * 2026-07-28, where the level travels in each request's `_meta`.
 */

import { InMemoryTransport, type Server } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.ts";
import { mcpServerFactory } from "../../src/mcp/server.ts";
import { buildToolCatalog } from "../../src/mcp/tools.ts";
import { FULL_VIEW } from "../../src/mcp/toolsets.ts";
import { operations } from "../../src/operations/index.ts";
import { listActions } from "../../src/store/actions/actions.ts";
import { mcpPost } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const titles = async () => (await listActions(s.db, s.org.id, {}, 100, null)).actions.map((a) => a.title);
const add = (id: number, title: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "crew_add_action", arguments: { title } },
});
const cancel = (requestId: number) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "user" } });

describe("issue 23 item 6: per-request state", () => {
  it("a write cancelled before it arrives is not performed; another caller's request with the same id is", async () => {
    const { key: a } = await s.userWithKey("operator", ["admin"]);
    const { key: b } = await s.userWithKey("operator", ["admin"]);
    const headers = (key: string) => ({ Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2025-11-25" });

    expect((await mcpPost(s.url, cancel(42), headers(a))).status).toBe(202);
    const others = await mcpPost(s.url, add(42, "B's write"), headers(b));
    expect(others.json.result.isError).toBeFalsy();
    const cancelled = await mcpPost(s.url, add(42, "A's cancelled write"), headers(a));
    expect(cancelled.json.error).toMatchObject({ code: -32800 });
    const after = await titles();
    expect(after).toContain("B's write");
    expect(after).not.toContain("A's cancelled write");
    // The cancellation was used up: the same id works again.
    const again = await mcpPost(s.url, add(42, "A's next write"), headers(a));
    expect(again.json.result.isError).toBeFalsy();
    expect(await titles()).toContain("A's next write");
  });

  it("logging/setLevel is acknowledged per request and refused for an unknown level", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const headers = { Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2025-11-25" };
    const ok = await mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "emergency" } }, headers);
    expect(ok.json).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const bad = await mcpPost(s.url, { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "loud" } }, headers);
    expect(bad.json.error).toBeTruthy();
  });

  it("a caller's logging/setLevel stays on its own request's server, never another caller's", async () => {
    const caller = {
      principal: async () => Promise.reject(new ApiError(401, "invalid_token", "unused")),
      requestId: () => "req_a",
      view: FULL_VIEW,
      protocolVersion: "2025-11-25",
    };
    const factory = mcpServerFactory(s.deps, buildToolCatalog(operations, s.config.baseUrl), { callerOf: () => caller });
    const own = (await factory({ era: "legacy" })) as Server;
    const another = (await factory({ era: "legacy" })) as Server;
    const [client, server] = InMemoryTransport.createLinkedPair();
    await own.connect(server);
    const sent: unknown[] = [];
    client.onmessage = (m) => void sent.push(m);
    await client.start();
    await client.send({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "emergency" } });
    await new Promise((r) => setTimeout(r, 20));
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    // Stateless callers have no session id: a level kept under it on a shared server would silence everyone's info messages.
    const levels = (server: Server) => server as unknown as { isMessageIgnored(level: string, sessionId?: string): boolean };
    expect(levels(own).isMessageIgnored("info", undefined)).toBe(true);
    expect(levels(another).isMessageIgnored("info", undefined)).toBe(false);
    await own.close();
  });

  it("logging/setLevel is no method at 2026-07-28 (the level is per request, in _meta)", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const res = await mcpPost(
      s.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "logging/setLevel",
        params: {
          level: "emergency",
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
      { Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "logging/setLevel" },
    );
    expect(res.json.error.code).toBe(-32601);
  });
});
