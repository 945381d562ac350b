import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("smoke", () => {
  it("serves the dashboard and takes an action", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    const agents = await call("/api/mcp/agents");
    expect(agents.status).toBe(200);
    expect(agents.json.total).toBe(17);
    expect(agents.json.neverRan).toBe(17);
    expect(agents.headers.get("api-version")).toBe("1.0.0");
    expect(agents.headers.get("x-ratelimit-remaining")).toBe("599");
    const created = await call("/api/mcp/actions", { body: { title: "Call Acme", priority: "critical" } });
    expect(created.status).toBe(200);
    expect(created.json.actionId).toMatch(/^act_/);
    const list = await call("/api/mcp/actions");
    expect(list.json.actions[0].lane).toBe("today");
    const bad = await call("/api/mcp/actions", { body: { actions: [{ title: "ok" }, { title: "x", priority: "urgent" }] } });
    expect(bad.status).toBe(400);
    expect(bad.json.issues).toEqual([{ path: "actions[1].priority", message: "Must be one of critical, high, medium, low." }]);
    const none = await api(s.url)("/api/mcp/agents");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("resource_metadata=");
    const b = await call("/api/mcp/briefing");
    expect(b.status).toBe(200);
    console.log(b.json, list.json);
  });
});
