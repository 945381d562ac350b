/**
 * Issue 10 item 4: JSON-RPC ids are chosen by each client, so many clients use the same ones at
 * once. Concurrent requests from different clients (different users, plans and arguments), all
 * with id 1, each get their own answer: their own arguments applied, their own plan's tools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpPost } from "../helpers/mcp.ts";
import { client, fastKey, fastUser, seedActions } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "100000" } });
});
afterAll(() => s.close());

describe("MCP with shared JSON-RPC ids", () => {
  it("concurrent requests from many clients reusing the same JSON-RPC id get their own answers", async () => {
    const operator = await client(s, "operator", ["admin"]);
    await seedActions(
      s,
      operator.user.id,
      Array.from({ length: 25 }, (_, i) => ({ title: `Shared ${i}` })),
    );
    const lite = await fastKey(s, await fastUser(s, "lite"), ["read"]);
    const operatorTools = (
      await mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { Authorization: `Bearer ${operator.key}` })
    ).json.result.tools.length;
    const liteTools = (await mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { Authorization: `Bearer ${lite}` })).json
      .result.tools.length;
    expect(operatorTools).toBeGreaterThan(liteTools);

    const keys = await Promise.all(Array.from({ length: 8 }, async () => fastKey(s, await fastUser(s, "operator"), ["admin"])));
    const calls = Array.from({ length: 60 }, (_, i) => {
      if (i % 5 === 4) {
        const key = i % 2 ? lite : operator.key;
        return mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { Authorization: `Bearer ${key}` }).then((res) => ({
          res,
          check: () => expect(res.json.result.tools.length).toBe(i % 2 ? liteTools : operatorTools),
        }));
      }
      const limit = (i % 20) + 1;
      const key = keys[i % keys.length] ?? operator.key;
      return mcpPost(
        s.url,
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "crew_list_actions", arguments: { limit } } },
        { Authorization: `Bearer ${key}` },
      ).then((res) => ({
        res,
        check: () => {
          expect(res.json.result.isError, res.text).toBeFalsy();
          expect(res.json.result.structuredContent.actions).toHaveLength(limit);
        },
      }));
    });
    for (const { res, check } of await Promise.all(calls)) {
      expect(res.status, res.text).toBe(200);
      expect(res.json.id).toBe(1);
      check();
    }
  });
});
