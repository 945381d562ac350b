/**
 * Webhook subscriptions over real HTTP (src/docs/notes/webhooks.md): create (secret shown once, Standard Webhooks
 * format), list without secrets, delete, validation, the private-address refusal, who may manage
 * them, and the deliveries endpoint's 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type Call, client, otherOrg, serverWithClient } from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { expectApiError } from "../helpers/webhooks.ts";

let s: TestServer;
let call: Call;
serverWithClient("operator", ["admin"], (f) => ({ s, call } = f));

describe("POST /api/webhooks", () => {
  it("creates a subscription and shows its whsec_ secret once", async () => {
    const res = await call("/api/webhooks", {
      body: { url: "https://hooks.example.com/crew?token=abc", events: ["action.created", "standup.ready"], description: " CRM sync " },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("600");
    expect(res.json).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
      url: "https://hooks.example.com/crew?token=abc",
      events: ["action.created", "standup.ready"],
      description: "CRM sync",
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      createdAt: new Date(s.clock.now()).toISOString(),
    });
    // 24 random bytes behind the prefix (Standard Webhooks: 24–64).
    expect(Buffer.from(res.json.secret.slice(6), "base64")).toHaveLength(24);
    const listed = await call("/api/webhooks");
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(res.json.secret);
    expect(listed.json.webhooks).toContainEqual({
      id: res.json.id,
      url: res.json.url,
      events: res.json.events,
      description: "CRM sync",
      createdAt: res.json.createdAt,
      lastAttemptAt: null,
      lastSuccessAt: null,
      lastFailureAt: null,
      lastFailureReason: null,
    });
  });

  it("names every invalid field (400 invalid_request)", async () => {
    const cases: [unknown, string[]][] = [
      [{ events: ["action.created"] }, ["url"]],
      [{ url: "", events: ["action.created"] }, ["url"]],
      [{ url: "not a url", events: ["action.created"] }, ["url"]],
      [{ url: "ftp://example.com/x", events: ["action.created"] }, ["url"]],
      [{ url: "https://user:pw@example.com/x", events: ["action.created"] }, ["url"]],
      [{ url: `https://example.com/${"x".repeat(2000)}`, events: ["action.created"] }, ["url"]],
      [{ url: "https://example.com" }, ["events"]],
      [{ url: "https://example.com", events: [] }, ["events"]],
      [{ url: "https://example.com", events: ["action.created", "action.created"] }, ["events"]],
      [{ url: "https://example.com", events: ["action.created", "action.deleted"] }, ["events[1]"]],
      [{ url: "https://example.com", events: ["action.created"], description: "x".repeat(5001) }, ["description"]],
      [{ url: "https://example.com", events: ["action.created"], secret: "whsec_mine" }, ["secret"]],
    ];
    for (const [body, paths] of cases) {
      const res = await call("/api/webhooks", { body });
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.json.issues.map((i: any) => i.path)).toEqual(paths);
    }
    const scheme = await call("/api/webhooks", { body: { url: "ftp://example.com/x", events: ["action.created"] } });
    expect(scheme.json.issues[0].message).toBe("Must be an http:// or https:// URL.");
  });

  it("accepts private targets while WEBHOOK_ALLOW_PRIVATE is on (as in these tests)", async () => {
    for (const url of ["http://127.0.0.1:9/x", "http://localhost:8080/", "http://[::1]/", "http://10.1.2.3/"]) {
      expect((await call("/api/webhooks", { body: { url, events: ["standup.ready"] } })).status, url).toBe(200);
    }
  });

  it("needs an admin key or crew:write, on a plan with write access", async () => {
    const body = { url: "https://example.com/h", events: ["action.created"] };
    const read = await client(s, "operator", ["read"]);
    const refused = expectApiError(await read.call("/api/webhooks", { body }), 403, "insufficient_scope");
    expect(refused.required_scope).toBe("admin");
    expectApiError(await read.call("/api/webhooks"), 403, "insufficient_scope");
    const pro = await client(s, "pro", ["read"]);
    expectApiError(await pro.call("/api/webhooks"), 403, "plan_upgrade_required");
    expectApiError(await api(s.url)("/api/webhooks"), 401, "unauthorized");
    const none = await s.db.all("SELECT id FROM webhooks WHERE url = ?", ["https://example.com/h"]);
    expect(none).toEqual([]);
  });
});

describe("GET and DELETE /api/webhooks/{id}", () => {
  it("lists the organization's subscriptions newest first; another organization's stay hidden", async () => {
    const a = await call("/api/webhooks", { body: { url: "https://a.example.com/", events: ["action.created"] } });
    s.clock.advance(1000);
    const b = await call("/api/webhooks", { body: { url: "https://b.example.com/", events: ["briefing.completed"] } });
    const elsewhere = await client(s, "operator", ["admin"]);
    await s.db.execute({ sql: "UPDATE users SET org_id = ? WHERE id = ?", args: [await otherOrg(s), elsewhere.user.id] });
    expect((await elsewhere.call("/api/webhooks")).json).toEqual({ webhooks: [] });
    expectApiError(await elsewhere.call(`/api/webhooks/${a.json.id}`, { method: "DELETE" }), 404, "not_found");
    expectApiError(await elsewhere.call(`/api/webhooks/${a.json.id}/deliveries`), 404, "not_found");

    const ids = (await call("/api/webhooks")).json.webhooks.map((w: any) => w.id);
    expect(ids.indexOf(b.json.id)).toBeLessThan(ids.indexOf(a.json.id));
  });

  it("deletes one at once; a second delete and unknown ids are 404", async () => {
    const made = await call("/api/webhooks", { body: { url: "https://gone.example.com/", events: ["action.created"] } });
    const del = await call(`/api/webhooks/${made.json.id}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ ok: true });
    expect((await call("/api/webhooks")).json.webhooks.map((w: any) => w.id)).not.toContain(made.json.id);
    expectApiError(await call(`/api/webhooks/${made.json.id}`, { method: "DELETE" }), 404, "not_found");
    expectApiError(await call("/api/webhooks/whk_nothing", { method: "DELETE" }), 404, "not_found");
    expectApiError(await call(`/api/webhooks/${made.json.id}/deliveries`), 404, "not_found");
    expectApiError(await call("/api/webhooks/whk_x/deliveries?limit=0"), 400, "invalid_request");
  });
});

describe("WEBHOOK_ALLOW_PRIVATE off (the default)", () => {
  let strict: TestServer;
  let strictCall: Call;
  beforeAll(async () => {
    strict = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
    strictCall = (await client(strict, "operator", ["admin"])).call;
  });
  afterAll(() => strict.close());

  it("refuses loopback, private, link-local and local names with 400 naming url", async () => {
    const refused = [
      "http://127.0.0.1/x",
      "http://127.8.9.10:8080/x",
      "http://2130706433/", // 127.0.0.1 as one number
      "http://0x7f.1/",
      "http://10.0.0.1/",
      "http://172.16.0.1/",
      "http://172.31.255.255/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::]/",
      "http://[fc00::1]/",
      "http://[fd12:3456::1]/",
      "http://[fe80::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:10.0.0.1]/",
      "http://localhost/",
      "http://LOCALHOST.:3000/",
      "http://api.localhost/",
    ];
    for (const url of refused) {
      const res = await strictCall("/api/webhooks", { body: { url, events: ["action.created"] } });
      expect(res.status, url).toBe(400);
      expect(res.json.error).toBe("invalid_request");
      expect(res.json.issues).toEqual([{ path: "url", message: expect.stringContaining("ALLOW_PRIVATE_TARGETS is off") }]);
    }
    expect(await strict.db.all("SELECT id FROM webhooks")).toEqual([]);
  });

  it("accepts public addresses and names", async () => {
    for (const url of ["https://hooks.example.com/x", "http://93.184.216.34/", "http://172.32.0.1/", "http://[2606:4700::1111]/"]) {
      expect((await strictCall("/api/webhooks", { body: { url, events: ["action.created"] } })).status, url).toBe(200);
    }
  });
});
