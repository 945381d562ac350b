/**
 * The webhooks page of the dashboard (src/docs/notes/webhooks.md): the organization's owners, on any plan, list,
 * create (the secret shown once) and delete subscriptions with plain forms, CSRF-checked like the
 * keys page; members get the owners-only page and their forms are refused.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { openWebhookSecret } from "../../src/webhooks/secret-at-rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { Browserish, signedIn } from "../web/client.ts";

/** An owner of the organization, signed in (webhooks are owners' business in the web app). */
async function signedInOwner(t: TestServer, plan: Parameters<TestServer["createUser"]>[0] = "operator") {
  const user = await t.createUser(plan, undefined, "owner");
  const tab = new Browserish(t.url);
  await tab.signIn(user.email);
  return { user, tab };
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const secretOn = (text: string) => text.match(/id="new-secret"[^>]*value="(whsec_[^"]+)"/)?.[1];

describe("/settings/webhooks", () => {
  it("sends a signed-out visitor to sign in, and back", async () => {
    const reply = await new Browserish(s.url).request("/settings/webhooks");
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe("/sign-in?next=%2Fsettings%2Fwebhooks");
  });

  it("creates a webhook showing its secret once, lists it, and deletes it after confirmation", async () => {
    const { tab, user } = await signedInOwner(s);
    const empty = await tab.request("/settings/webhooks");
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<a href="/settings/webhooks" aria-current="page">Webhooks</a>');
    expect(empty.text).toContain("No webhooks yet.");
    const csrf = await tab.csrfToken("/settings/webhooks");

    const created = await tab.request("/settings/webhooks", {
      form: { csrf, url: "https://hooks.example.com/crew", events: ["action.created", "standup.ready"], description: "Slack relay" },
    });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const secret = secretOn(created.text);
    expect(secret).toMatch(/^whsec_/);
    const [row] = await s.db.all<{ id: string; secret: string; created_by: string; events: string }>(
      "SELECT id, secret, created_by, events FROM webhooks WHERE url = ?",
      ["https://hooks.example.com/crew"],
    );
    expect(row).toMatchObject({ created_by: user.id, events: '["action.created","standup.ready"]' });
    expect(await openWebhookSecret(s.config, row?.id ?? "", row?.secret ?? "")).toBe(secret); // sealed at rest
    expect(created.text).toContain("Slack relay");

    const again = await tab.request("/settings/webhooks");
    expect(again.text).toContain("https://hooks.example.com/crew");
    expect(again.text).toContain("action.created, standup.ready");
    expect(again.text).not.toContain(secret!);

    const deleted = await tab.request("/settings/webhooks/delete", { form: { csrf, id: row!.id } });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/settings/webhooks?deleted=1");
    const after = await tab.request("/settings/webhooks?deleted=1");
    expect(after.text).toContain("Webhook deleted.");
    expect(after.text).not.toContain("https://hooks.example.com/crew");
    const twice = await tab.request("/settings/webhooks/delete", { form: { csrf, id: row!.id } });
    expect(twice.status).toBe(404);
    expect(twice.text).toContain("That webhook was not found");
  });

  it("explains what is wrong with each field and keeps what was typed", async () => {
    const { tab } = await signedInOwner(s);
    const csrf = await tab.csrfToken("/settings/webhooks");
    const missing = await tab.request("/settings/webhooks", { form: { csrf, url: "", description: "kept" } });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("The webhook was not created: correct the form below.");
    expect(missing.text).toContain("Give the URL that receives the events.");
    expect(missing.text).toContain("Choose at least one event.");
    expect(missing.text).toContain('value="kept"');
    const scheme = await tab.request("/settings/webhooks", { form: { csrf, url: "ftp://example.com/", events: "action.created" } });
    expect(scheme.status).toBe(400);
    expect(scheme.text).toContain("Must be an http:// or https:// URL.");
    expect(scheme.text).toContain('value="ftp://example.com/"');
    expect(await s.db.all("SELECT id FROM webhooks WHERE url LIKE 'ftp:%'")).toEqual([]);
  });

  it("refuses forms without this session's token or from another origin", async () => {
    const { tab } = await signedInOwner(s);
    const form = { url: "https://forged.example.com/", events: "action.created" };
    expect((await tab.request("/settings/webhooks", { form })).status).toBe(403);
    const csrf = await tab.csrfToken("/settings/webhooks");
    expect((await tab.request("/settings/webhooks", { form: { ...form, csrf }, origin: "https://evil.example" })).status).toBe(403);
    expect(await s.db.all("SELECT id FROM webhooks WHERE url = ?", ["https://forged.example.com/"])).toEqual([]);
  });

  it("lets an owner on any plan manage webhooks (plans cap MCP/REST, not the web app)", async () => {
    const { tab } = await signedInOwner(s, "lite");
    const csrf = await tab.csrfToken("/settings/webhooks");
    const made = await tab.request("/settings/webhooks", {
      form: { csrf, url: "https://lite-owner.example.com/", events: "action.created" },
    });
    expect(made.status).toBe(200);
    expect(secretOn(made.text)).toMatch(/^whsec_/);
    expect(await s.db.all("SELECT url FROM webhooks WHERE url = ?", ["https://lite-owner.example.com/"])).toHaveLength(1);
  });

  it("shows a member, whatever their plan, the owners-only page and refuses their forms with nothing stored", async () => {
    const { tab: ownerTab } = await signedInOwner(s);
    const ownerCsrf = await ownerTab.csrfToken("/settings/webhooks");
    const kept = { csrf: ownerCsrf, url: "https://kept.example.com/", events: "action.created" };
    expect((await ownerTab.request("/settings/webhooks", { form: kept })).status).toBe(200);
    const [hook] = await s.db.all<{ id: string }>("SELECT id FROM webhooks WHERE url = ?", [kept.url]);
    const { tab } = await signedIn(s, "team_enterprise");
    const page = await tab.request("/settings/webhooks");
    expect(page.status).toBe(403);
    expect(page.text).toContain("<h1>Owners only</h1>");
    expect(page.text).not.toContain('action="/settings/webhooks"');
    expect(page.text).not.toContain('href="/settings/webhooks"'); // not in a member's menu
    const csrf = await tab.csrfToken("/dashboard");
    const refused = await tab.request("/settings/webhooks", {
      form: { csrf, url: "https://member.example.com/", events: "action.created" },
    });
    expect(refused.status).toBe(403);
    expect(await s.db.all("SELECT id FROM webhooks WHERE url = ?", ["https://member.example.com/"])).toEqual([]);
    expect((await tab.request("/settings/webhooks/delete", { form: { csrf, id: hook?.id ?? "" } })).status).toBe(403);
    expect(await s.db.all("SELECT id FROM webhooks WHERE url = ?", [kept.url])).toEqual([{ id: hook?.id }]);
  });
});
