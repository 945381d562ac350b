/**
 * The smaller first-use items of the web app: settings under /settings/* (old addresses moved),
 * schedules and people in words, what an agent still needs, and result pages reachable by GET.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { signedIn } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("settings addresses", () => {
  it("serves the settings pages under /settings/* and moves the old /dashboard/* addresses there", async () => {
    const { tab } = await signedIn(s, "pro", "owner");
    for (const name of ["keys", "calendar", "webhooks"]) {
      const page = await tab.request(`/settings/${name}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`href="/settings/${name}" aria-current="page"`);
      const old = await tab.request(`/dashboard/${name}?x=1`);
      expect(old.status).toBe(301);
      expect(old.headers.get("location")).toBe(`/settings/${name}?x=1`);
    }
    const csrf = await tab.csrfToken();
    const posted = await tab.request("/dashboard/keys/revoke", { form: { csrf, hash: "0" } });
    expect(posted.status).toBe(308);
    expect(posted.headers.get("location")).toBe("/settings/keys/revoke");
    expect((await tab.request("/dashboard")).text).not.toMatch(/href="\/dashboard\/(keys|calendar|webhooks)"/);
  });
});

describe("words, not developer jargon", () => {
  it("says an agent's schedule in words and names what the agent still needs, with the page that provides it", async () => {
    const { tab } = await signedIn(s, "pro", "owner");
    const standup = (await tab.request("/agents/standup")).text;
    expect(standup).toContain("Runs every day at 08:00 and 18:00, in your organization&#39;s time zone.");
    expect(standup).not.toContain("<code>0 8,18 * * *</code>");
    const slack = (await tab.request("/agents/slack")).text;
    expect(slack).toContain("Runs every hour at :20");
    expect(slack).toMatch(
      /Not ready to run by itself.<\/strong> Needs a model: connect one in Settings → Model. <a href="\/settings\/model">/,
    );
    expect((await tab.request("/agents/calendar")).text).toContain("Runs Monday to Friday at 07:00");
    expect((await tab.request("/agents/content")).text).toContain("Runs every Monday and Thursday at 06:45");
    expect((await tab.request("/agents/standup")).text).not.toContain("Not ready to run by itself");
    const dashboard = (await tab.request("/dashboard")).text;
    expect(dashboard).not.toContain("POST /api/");
  });

  it("names people in the audit log, never by their internal ids", async () => {
    const { user, tab } = await signedIn(s, "pro", "owner");
    const csrf = await tab.csrfToken();
    await tab.request("/settings/keys", { form: { csrf, name: "audited", scopes: ["read"] } });
    const audit = (await tab.request("/settings/audit")).text;
    expect(audit).toContain(`<td data-label="Actor">${user.name || user.email}</td>`);
    expect(audit).not.toContain(user.id);
  });
});

describe("form errors", () => {
  it("shows each validation error once: beside its field on the add-user form, as the alert for a row's form", async () => {
    const { user, tab } = await signedIn(s, "pro", "owner");
    const csrf = await tab.csrfToken("/settings/users");
    const bad = await tab.request("/settings/users", { form: { csrf, name: "Eve", email: "eve@example.com", role: "boss", plan: "lite" } });
    expect(bad.status).toBe(400);
    const roleError = bad.text.match(/<p class="field-error" id="user-role-error">([^<]+)<\/p>/)?.[1];
    expect(roleError).toBeTruthy();
    expect(bad.text.split(roleError as string).length - 1).toBe(1);
    expect(bad.text).toContain("The user was not created: correct the form below.");

    // A row's form has no field of its own to show the error by: it is said once, in the alert.
    const row = await tab.request(`/settings/users/${user.id}`, { form: { csrf, role: "boss", plan: "pro" } });
    expect(row.status).toBe(400);
    const alert = row.text.match(/<div class="alert alert-error"[^>]*>([^<]+)<\/div>/)?.[1];
    expect(alert).toBeTruthy();
    expect(row.text.split(alert as string).length - 1).toBe(1);
    expect(row.text).not.toContain('id="user-role-error"');
  });

  it("says an error of a field the page does not show once, in the alert, with its advice and not a pointer to fields below", async () => {
    const { tab } = await signedIn(s, "pro", "owner");
    const csrf = await tab.csrfToken("/actions");
    await tab.request("/actions", { form: { csrf, title: "Call the bank", priority: "high" } });
    const id = (await tab.request("/actions")).text.match(/action="\/actions\/(act_[^"]+)"/)?.[1];
    expect(id).toBeTruthy();
    const row = await tab.request(`/actions/${id}`, { form: { csrf, status: "finished" } });
    expect(row.status).toBe(400);
    const alert = row.text.match(/<div class="alert alert-error" role="alert">([^<]+)<\/div>/)?.[1] ?? "";
    // The advice: what the field accepts.
    expect(alert).toMatch(/^Status: Must be one of .*done/);
    expect(row.text.split(alert).length - 1).toBe(1);
    expect(row.text).not.toContain("correct the fields marked below");
    // The add form is not the form sent: no error beside its fields, nothing of the row typed into it.
    expect(row.text).not.toContain('aria-invalid="true"');

    const add = await tab.request("/actions", { form: { csrf, title: "", priority: "urgent" } });
    expect(add.status).toBe(400);
    expect(add.text).toContain('role="alert">The action was not added: correct the fields marked below.</div>');
    const priority = add.text.match(/<p class="field-error" id="new-priority-error">([^<]+)<\/p>/)?.[1] ?? "";
    expect(priority).toMatch(/critical, high, medium, low/);
    expect(add.text.split(priority).length - 1).toBe(1);
    expect(add.text).toMatch(/<select id="new-priority" name="priority" aria-invalid="true" aria-describedby="new-priority-error">/);
  });
});
