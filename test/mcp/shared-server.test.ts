/**
 * Issue 10 item 4 (first with one shared SDK Server, now a server per request from one factory,
 * src/mcp/server.ts): what /mcp relies on: nothing about a caller outlives its request — the next caller's tools,
 * resources and prompts are its own, whatever came just before, over JSON or SSE, alone or in a
 * batch — and the ids the server uses internally never leak into or clash with a client's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpPost } from "../helpers/mcp.ts";
import { client, fastKey, fastUser } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "100000" } });
});
afterAll(() => s.close());

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const toolNames = (res: { json: any }) =>
  (res.json.result.tools as Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>).map((t) => t.name);

/** The `data:` line of a one-message SSE answer. */
const sseMessage = (text: string) =>
  JSON.parse(
    text
      .split("\n")
      .find((line) => line.startsWith("data: "))
      ?.slice(6) ?? "null",
  );

describe("one MCP server shared by every request", () => {
  it("a pro key's tools/list right after an operator key's call shows only read tools", async () => {
    const operator = await client(s, "operator", ["admin"]);
    const pro = await fastKey(s, await fastUser(s, "pro"), ["read"]);
    const operatorAll = toolNames(await mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, auth(operator.key)));
    const proAlone = toolNames(await mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, auth(pro)));
    expect(proAlone.length).toBeGreaterThan(0);
    expect(proAlone.length).toBeLessThan(operatorAll.length);
    expect(proAlone).not.toContain("crew_add_action");
    expect(operatorAll).toContain("crew_add_action");

    // Sequentially: an operator's write, then the pro key.
    const write = await mcpPost(
      s.url,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "crew_add_action", arguments: { title: "Shared server" } } },
      auth(operator.key),
    );
    expect(write.json.result.isError, write.text).toBeFalsy();
    const after = await mcpPost(s.url, { jsonrpc: "2.0", id: 7, method: "tools/list" }, auth(pro));
    expect(toolNames(after)).toEqual(proAlone);

    // The pro key cannot call what it cannot see, even straight after the operator did.
    const denied = await mcpPost(
      s.url,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "crew_add_action", arguments: { title: "Not mine" } } },
      auth(pro),
    );
    expect(denied.json.result.isError).toBe(true);

    // Interleaved: operator batches, SSE-only answers and pro lists all at once, same ids.
    const rounds = await Promise.all(
      Array.from({ length: 12 }, (_, i) => {
        if (i % 3 === 0) {
          return mcpPost(
            s.url,
            [
              { jsonrpc: "2.0", id: 1, method: "tools/list" },
              { jsonrpc: "2.0", id: 2, method: "resources/list" },
            ],
            auth(operator.key),
          ).then((res) => () => {
            const byId = new Map((res.json as Array<{ id: number; result: any }>).map((m) => [m.id, m.result]));
            expect(byId.get(1).tools.map((t: { name: string }) => t.name)).toEqual(operatorAll);
            expect(byId.get(2).resources.length).toBeGreaterThan(0);
          });
        }
        if (i % 3 === 1) {
          return mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { ...auth(pro), Accept: "text/event-stream" }).then(
            (res) => () => {
              expect(res.headers.get("content-type")).toContain("text/event-stream");
              const message = sseMessage(res.text);
              expect(message.id).toBe(1);
              expect(message.result.tools.map((t: { name: string }) => t.name)).toEqual(proAlone);
            },
          );
        }
        return mcpPost(s.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, auth(pro)).then((res) => () => {
          expect(res.json.id).toBe(1);
          expect(toolNames(res)).toEqual(proAlone);
        });
      }),
    );
    for (const check of rounds) check();
  });

  it("answers a client under its own id, even one shaped like the server's internal ids", async () => {
    const operator = await client(s, "operator", ["admin"]);
    for (const id of ["crew:1", "crew:2", 0, "1"]) {
      const res = await mcpPost(s.url, { jsonrpc: "2.0", id, method: "tools/list" }, auth(operator.key));
      expect(res.status, res.text).toBe(200);
      expect(res.json.id).toBe(id);
      expect(res.json.result.tools.length).toBeGreaterThan(0);
    }
  });
});
