/**
 * Issue 33 item 19: the 2026-07-28 era answers an unknown resource with -32602 and its own words
 * (no "MCP error -32002" of another code in the message); completion/complete answers only for
 * prompts and templates the caller can see — in both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, modernPost } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let adminKey: string;
let readKey: string;
beforeAll(async () => {
  s = await startServer();
  ({ key: adminKey } = await s.userWithKey("operator", ["admin"]));
  ({ key: readKey } = await s.userWithKey("operator", ["read"]));
});
afterAll(async () => s.close());

const modern = (key: string, method: string, params: Record<string, unknown>, name?: string) =>
  modernPost(s.url, key, method, params, { name });

describe("the unknown resource of the 2026-07-28 era", () => {
  it("is -32602 with a message that names no other code, and the URI in data", async () => {
    const res = await modern(adminKey, "resources/read", { uri: "crew://nothing" }, "crew://nothing");
    expect(res.json.error.code, res.text).toBe(-32602);
    expect(res.json.error.message).toMatch(/^Resource not found: crew:\/\/nothing/);
    expect(res.json.error.message).not.toContain("-32002");
    expect(res.json.error.data).toEqual({ uri: "crew://nothing" });
  });

  it("an unknown action is the same kind of answer", async () => {
    const res = await modern(adminKey, "resources/read", { uri: "crew://actions/act_nope" }, "crew://actions/act_nope");
    expect(res.json.error.code, res.text).toBe(-32602);
    expect(res.json.error.message).not.toContain("MCP error");
  });
});

describe("completions only for what the caller can see", () => {
  const handOff = { ref: { type: "ref/prompt", name: "hand_off" }, argument: { name: "to", value: "sal" } };

  it("2026-07-28: hand_off (write tier) completes for an admin key, to nothing for a read key", async () => {
    const admin = await modern(adminKey, "completion/complete", handOff);
    expect(admin.json.result.completion.values, admin.text).toEqual(["sales"]);
    const prompts = await modern(readKey, "prompts/list", {});
    expect(prompts.json.result.prompts.map((p: { name: string }) => p.name)).not.toContain("hand_off");
    const read = await modern(readKey, "completion/complete", handOff);
    expect(read.json.result.completion, read.text).toMatchObject({ values: [], total: 0 });
  });

  it("2025 era: the same", async () => {
    const admin = await connectHttp(s.url, adminKey);
    const reader = await connectHttp(s.url, readKey);
    try {
      expect((await admin.complete(handOff as never)).completion.values).toEqual(["sales"]);
      expect((await reader.complete(handOff as never)).completion.values).toEqual([]);
      // A template the caller can read still completes.
      const mode = await reader.complete({
        ref: { type: "ref/resource", uri: "crew://standup/{mode}" },
        argument: { name: "mode", value: "mo" },
      });
      expect(mode.completion.values).toEqual(["morning"]);
    } finally {
      await admin.close();
      await reader.close();
    }
  });
});
