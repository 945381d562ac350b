/**
 * Issue 18 item 9: the hourly quota counts JSON-RPC requests, so a 2025-03-26 batch of n calls
 * costs n units, and a batch that does not fit is refused whole (none of its writes stored).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listActions } from "../../src/store/actions/actions.ts";
import { mcpPost } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "10" } });
});
afterAll(() => s.close());

const add = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "crew_add_action", arguments: { title: `Batch ${id}` } },
});
const stored = async () => (await listActions(s.db, s.org.id, {}, 100, null)).actions.length;

describe("issue 18 item 9: quota per JSON-RPC call", () => {
  it("takes one unit per request of a batch and refuses a batch larger than what is left, storing nothing", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const headers = { Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2025-03-26" };
    const before = await stored();

    const batch = await mcpPost(s.url, [add(1), add(2), add(3), add(4), { jsonrpc: "2.0", method: "notifications/initialized" }], headers);
    expect(batch.status).toBe(200);
    expect(batch.json).toHaveLength(4);
    expect(batch.headers.get("x-ratelimit-remaining")).toBe("6");
    expect(await stored()).toBe(before + 4);

    const single = await mcpPost(s.url, add(5), headers);
    expect(single.headers.get("x-ratelimit-remaining")).toBe("5");

    // 5 left: the POST's own unit is taken, the 6 further requests do not fit, so nothing runs.
    const tooBig = await mcpPost(s.url, [add(6), add(7), add(8), add(9), add(10), add(11), add(12)], headers);
    expect(tooBig.status).toBe(429);
    expect(tooBig.json.error).toBe("rate_limited");
    expect(tooBig.json.message).toContain("batch of 7 requests");
    expect(tooBig.headers.get("retry-after")).toBeTruthy();
    expect(await stored()).toBe(before + 5);
  });
});
