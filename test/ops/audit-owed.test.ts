/**
 * The audit events the features outside issue 14 owe (src/docs/notes/operating.md): sources added and deleted, model
 * settings saved and deleted (REST, the operations the web pages share), and users created, changed
 * and deactivated from the web users page — each once, with actor, organization and time, never a
 * secret (the model key, a feed URL's query string).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/lib/clock.ts";
import { listAudit } from "../../src/store/audit/audit.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

let s: TestServer;
afterAll(() => s?.close());
beforeAll(async () => {
  s = await startServer({ clock: new ManualClock(Date.now()) });
});

const MODEL_KEY = "sk-audited-model-key-777";

describe("audit events owed by sources, model settings and the users page", () => {
  it("records each change once, with the acting owner, the organization and the time", async () => {
    const owner = await s.createUser("operator", "owner-audit@example.com", "owner");
    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);
    const call = api(s.url, await s.createKey(owner, ["admin"]));
    const before = (await listAudit(s.db, s.org.id, 1000)).length;

    const feed = await call("/api/integrations/sources", {
      body: { kind: "feed", url: "https://example.com/feed.xml?token=feed-query-secret", agents: ["research"] },
    });
    expect(feed.status).toBe(200);
    expect((await call(`/api/integrations/sources/${feed.json.id}`, { method: "DELETE" })).status).toBe(200);
    // A delete of what is gone changes nothing and records nothing.
    expect((await call(`/api/integrations/sources/${feed.json.id}`, { method: "DELETE" })).status).toBe(404);

    expect((await call("/api/integrations/model", { body: { provider: "openai", model: "gpt-4o-mini", apiKey: MODEL_KEY } })).status).toBe(
      200,
    );
    expect((await call("/api/integrations/model", { method: "DELETE" })).status).toBe(200);
    expect((await call("/api/integrations/model", { method: "DELETE" })).status).toBe(404);

    const csrf = await tab.csrfToken("/settings/users");
    const created = await tab.request("/settings/users", {
      form: { csrf, name: "Ada Audit", email: "ada-audit@example.com", role: "member", plan: "lite" },
    });
    expect(created.status).toBe(201);
    const adaId = String((await s.db.execute("SELECT id FROM users WHERE email = 'ada-audit@example.com'")).rows[0]?.id);
    expect((await tab.request(`/settings/users/${adaId}`, { form: { csrf, role: "owner", plan: "pro" } })).status).toBe(303);
    // The same values again: no change, no row.
    expect((await tab.request(`/settings/users/${adaId}`, { form: { csrf, role: "owner", plan: "pro" } })).status).toBe(303);
    expect((await tab.request(`/settings/users/${adaId}/deactivate`, { form: { csrf } })).status).toBe(303);
    expect((await tab.request(`/settings/users/${adaId}/deactivate`, { form: { csrf } })).status).toBe(404);

    const entries = (await listAudit(s.db, s.org.id, 1000)).reverse().slice(before);
    expect(entries.map((e) => [e.event, e.subject])).toEqual([
      ["source.created", feed.json.id],
      ["source.deleted", feed.json.id],
      ["model_settings.changed", null],
      ["model_settings.changed", null],
      ["user.created", "ada-audit@example.com"],
      ["user.role_changed", "ada-audit@example.com"],
      ["user.plan_changed", "ada-audit@example.com"],
      ["user.deactivated", "ada-audit@example.com"],
    ]);
    expect(entries.map((e) => e.detail)).toEqual([
      { kind: "feed", url: "https://example.com/feed.xml" },
      { kind: "feed" },
      { action: "saved", provider: "openai", model: "gpt-4o-mini", baseUrl: null, apiKey: "replaced" },
      { action: "deleted" },
      { plan: "lite", role: "member" },
      { role: "owner", from: "member" },
      { plan: "pro", from: "lite" },
      {},
    ]);
    for (const e of entries) {
      expect(e.actor).toEqual({ kind: "user", userId: owner.id });
      expect(e.orgId).toBe(s.org.id);
      expect(e.at).toEqual(expect.any(Number));
    }
    const whole = JSON.stringify(entries);
    expect(whole).not.toContain(MODEL_KEY);
    expect(whole).not.toContain("feed-query-secret");
  });
});
