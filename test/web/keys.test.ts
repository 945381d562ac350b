import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, MINUTE } from "../../src/lib/clock.ts";
import { sha256Hex } from "../../src/lib/random.ts";

import { api, startServer, type TestServer } from "../helpers/server.ts";
import { signedIn } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const create = (tab: Awaited<ReturnType<typeof signedIn>>["tab"], body: unknown) => tab.request("/api/mcp/keys", { json: body });

describe("POST /api/mcp/keys", () => {
  it("creates a key shown once; only its SHA-256 is stored; it works as a Bearer credential", async () => {
    const { tab, user } = await signedIn(s, "operator");
    const reply = await create(tab, { name: "  Claude Desktop  ", scopes: ["agents", "briefing"] });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(["createdAt", "hash", "key", "name", "scopes"]);
    expect(reply.json.key).toMatch(/^crew_[a-z2-7]{52,}$/);
    expect(reply.json.hash).toBe(sha256Hex(reply.json.key));
    expect(reply.json).toMatchObject({
      name: "Claude Desktop",
      scopes: ["agents", "briefing"],
      createdAt: new Date(s.clock.now()).toISOString(),
    });
    const stored = await s.db.all<Record<string, unknown>>("SELECT * FROM api_keys WHERE user_id = ?", [user.id]);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(reply.json.key);
    const agents = await api(s.url, reply.json.key)("/api/mcp/agents");
    expect(agents.status).toBe(200);
    expect(agents.json.total).toBe(17);
  });

  it("validates name and scopes (400 invalid_request naming each field)", async () => {
    const { tab } = await signedIn(s, "operator");
    const cases: [unknown, string[]][] = [
      [{ name: "", scopes: ["read"] }, ["name"]],
      [{ name: "   ", scopes: ["read"] }, ["name"]],
      [{ name: "x".repeat(101), scopes: ["read"] }, ["name"]],
      [{ name: "ok", scopes: [] }, ["scopes"]],
      [{ name: "ok", scopes: ["read", "read"] }, ["scopes"]],
      [{ name: "ok", scopes: ["read", "everything"] }, ["scopes[1]"]],
      [{ name: "ok", scopes: "read" }, ["scopes"]],
      [{ name: "ok" }, ["scopes"]],
      [{ name: "ok", scopes: ["read"], plan: "operator" }, ["plan"]],
    ];
    for (const [body, paths] of cases) {
      const reply = await create(tab, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.json.error).toBe("invalid_request");
      expect(reply.json.issues.map((i: any) => i.path)).toEqual(paths);
    }
    expect((await create(tab, { name: "x".repeat(100), scopes: ["read"] })).status).toBe(200);
    expect((await tab.request("/api/mcp/keys", { method: "POST", headers: { "Content-Type": "text/plain" } })).status).toBe(415);
  });

  it("caps scopes by plan: 403 plan_upgrade_required", async () => {
    const pro = (await signedIn(s, "pro")).tab;
    const admin = await create(pro, { name: "k", scopes: ["read", "admin"] });
    expect(admin.status).toBe(403);
    expect(admin.json.error).toBe("plan_upgrade_required");
    expect(admin.json.message).toContain("operator");
    expect((await create(pro, { name: "k", scopes: ["read", "briefing", "agents"] })).status).toBe(200);

    for (const plan of ["lite", "team_starter"] as const) {
      const tab = (await signedIn(s, plan)).tab;
      const refused = await create(tab, { name: "k", scopes: ["agents"] });
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe("plan_upgrade_required");
      const listing = await tab.request("/api/mcp/keys");
      expect(listing.json).toEqual({ keys: [], allowedScopes: [], plan });
    }
    const enterprise = (await signedIn(s, "team_enterprise")).tab;
    expect((await create(enterprise, { name: "k", scopes: ["admin"] })).status).toBe(200);
  });

  it("allows KEY_CREATE_PER_HOUR creations per hour, revoked keys included; the 11th gets 429 with rate headers", async () => {
    const { tab } = await signedIn(s, "operator");
    const start = s.clock.now();
    for (let i = 0; i < 10; i++) {
      const made = await create(tab, { name: `k${i}`, scopes: ["read"] });
      expect(made.status).toBe(200);
      if (i % 2 === 0) expect((await tab.request(`/api/mcp/keys?hash=${made.json.hash}`, { method: "DELETE" })).status).toBe(200);
      s.clock.advance(MINUTE);
    }
    const refused = await create(tab, { name: "eleventh", scopes: ["read"] });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toBe("rate_limited");
    expect(refused.headers.get("x-ratelimit-limit")).toBe("10");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(Math.ceil((start + HOUR) / 1000)));
    expect(refused.headers.get("retry-after")).toBe(String(50 * 60)); // the first creation leaves the hour in 50 min
    expect((await tab.request("/api/mcp/keys")).json.keys).toHaveLength(5);

    s.clock.advance(50 * MINUTE + 1);
    expect((await create(tab, { name: "eleventh", scopes: ["read"] })).status).toBe(200);
    expect((await create(tab, { name: "twelfth", scopes: ["read"] })).status).toBe(429);
  });

  it("honours KEY_CREATE_PER_HOUR from the environment", async () => {
    const strict = await startServer({ env: { KEY_CREATE_PER_HOUR: "2" } });
    try {
      const { tab } = await signedIn(strict);
      expect((await create(tab, { name: "a", scopes: ["read"] })).status).toBe(200);
      expect((await create(tab, { name: "b", scopes: ["read"] })).status).toBe(200);
      const refused = await create(tab, { name: "c", scopes: ["read"] });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("x-ratelimit-limit")).toBe("2");
    } finally {
      await strict.close();
    }
  });
});

describe("GET /api/mcp/keys", () => {
  it("lists the user's active keys only, newest first, with last use, allowed scopes and plan", async () => {
    const { tab } = await signedIn(s, "pro");
    const older = (await create(tab, { name: "older", scopes: ["read"] })).json;
    s.clock.advance(1000);
    const newer = (await create(tab, { name: "newer", scopes: ["agents"] })).json;
    s.clock.advance(1000);
    const gone = (await create(tab, { name: "gone", scopes: ["briefing"] })).json;
    await tab.request(`/api/mcp/keys?hash=${gone.hash}`, { method: "DELETE" });
    const other = await signedIn(s, "pro");
    await create(other.tab, { name: "someone else's", scopes: ["read"] });

    s.clock.advance(1000);
    const usedAt = s.clock.now();
    expect((await api(s.url, newer.key)("/api/mcp/agents")).status).toBe(200);

    const listing = await tab.request("/api/mcp/keys");
    expect(listing.status).toBe(200);
    expect(listing.json).toEqual({
      keys: [
        { hash: newer.hash, name: "newer", scopes: ["agents"], createdAt: newer.createdAt, lastUsedAt: new Date(usedAt).toISOString() },
        { hash: older.hash, name: "older", scopes: ["read"], createdAt: older.createdAt, lastUsedAt: null },
      ],
      allowedScopes: ["read", "briefing", "agents"],
      plan: "pro",
    });
  });

  it("needs the signed-in session: no cookie is 401, a Bearer key is refused", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const bearer = await api(s.url, key)("/api/mcp/keys");
    expect(bearer.status).toBe(401);
    expect(bearer.json.error).toBe("unauthorized");
    expect((await api(s.url)("/api/mcp/keys")).status).toBe(401);
    expect((await api(s.url)("/api/mcp/keys", { body: { name: "x", scopes: ["read"] } })).status).toBe(401);
    const patch = await api(s.url)("/api/mcp/keys", { method: "PATCH" });
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("GET, HEAD, POST, DELETE");
  });
});

describe("DELETE /api/mcp/keys", () => {
  it("revokes at once: the next request with the key is 401; a second revoke is 404", async () => {
    const { tab } = await signedIn(s, "operator");
    const made = (await create(tab, { name: "short-lived", scopes: ["admin"] })).json;
    const call = api(s.url, made.key);
    expect((await call("/api/mcp/agents")).status).toBe(200);
    const reply = await tab.request(`/api/mcp/keys?hash=${made.hash}`, { method: "DELETE" });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true });
    const after = await call("/api/mcp/agents");
    expect(after.status).toBe(401);
    expect(after.json.error).toBe("invalid_token");
    const again = await tab.request(`/api/mcp/keys?hash=${made.hash}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.json.error).toBe("not_found");
  });

  it("treats another user's key as not found and leaves it working", async () => {
    const mine = await signedIn(s, "operator");
    const theirs = await signedIn(s, "operator");
    const made = (await create(theirs.tab, { name: "theirs", scopes: ["read"] })).json;
    const reply = await mine.tab.request(`/api/mcp/keys?hash=${made.hash}`, { method: "DELETE" });
    expect(reply.status).toBe(404);
    expect(reply.json.error).toBe("not_found");
    expect((await api(s.url, made.key)("/api/mcp/agents")).status).toBe(200);
    const unknown = await mine.tab.request(`/api/mcp/keys?hash=${"0".repeat(64)}`, { method: "DELETE" });
    expect(unknown.status).toBe(404);
  });

  it("answers 400 invalid_request when hash is missing or not 64 hex characters", async () => {
    const { tab } = await signedIn(s, "operator");
    for (const query of ["", "?hash=", `?hash=${"g".repeat(64)}`, `?hash=${"a".repeat(63)}`, `?hash=${"a".repeat(65)}`]) {
      const reply = await tab.request(`/api/mcp/keys${query}`, { method: "DELETE" });
      expect(reply.status, query).toBe(400);
      expect(reply.json.error).toBe("invalid_request");
      expect(reply.json.issues[0].path).toBe("hash");
    }
    const twice = await tab.request(`/api/mcp/keys?hash=${"a".repeat(64)}&hash=${"b".repeat(64)}`, { method: "DELETE" });
    expect(twice.status).toBe(400);
  });
});

describe("the API keys page", () => {
  it("creates a key (shown once), lists it and revokes it through plain forms", async () => {
    const { tab } = await signedIn(s, "pro");
    const page = await tab.request("/settings/keys");
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    // Only the plan's scopes are offered.
    expect(page.text).toContain('value="read"');
    expect(page.text).not.toContain('value="admin"');
    const csrf = await tab.csrfToken();

    const created = await tab.request("/settings/keys", { form: { csrf, name: "From the page", scopes: ["agents", "read"] } });
    expect(created.status).toBe(200);
    const key = created.text.match(/id="new-key"[^>]*value="(crew_[a-z2-7]+)"/)?.[1];
    expect(key).toBeDefined();
    expect(created.text).toContain("will not show it again");
    expect((await api(s.url, key)("/api/mcp/agents")).status).toBe(200);
    // The list page never shows the raw key again.
    const list = await tab.request("/settings/keys");
    expect(list.text).toContain("From the page");
    expect(list.text).not.toContain(key);

    const refused = await tab.request("/settings/keys", { form: { csrf, name: "too much", scopes: ["admin"] } });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("does not allow the scope admin");
    const empty = await tab.request("/settings/keys", { form: { csrf, name: "", scopes: [] } });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('role="alert"');

    const revoked = await tab.request("/settings/keys/revoke", { form: { csrf, hash: sha256Hex(key!) } });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/settings/keys?revoked=1");
    expect((await api(s.url, key)("/api/mcp/agents")).status).toBe(401);
    expect((await tab.request("/settings/keys?revoked=1")).text).toContain("Key revoked.");
  });

  it("tells a plan without API access that it cannot have keys", async () => {
    const { tab } = await signedIn(s, "lite");
    const page = await tab.request("/settings/keys");
    expect(page.text).toContain("has no API access");
    expect(page.text).not.toContain('name="scopes"');
  });
});
