/**
 * What the signed-in pages say and how they are built, over plain HTTP: the key form's errors
 * next to their fields, refusals in a person's words, plans without API access, the shared revoke
 * step of both credential tables, and the dashboard's run ages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/domain.ts";
import { setUserPlan } from "../../src/store/auth/users.ts";
import { connect, exchangeCode, HttpBrowser } from "../helpers/oauth.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { insertPastRuns } from "../helpers/web.ts";
import { signedIn } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { KEY_CREATE_PER_HOUR: "2" } });
});
afterAll(() => s.close());

/** The text a person sees: inline tags dropped, other tags a space, quotes decoded, whitespace collapsed. */
const visible = (html: string) =>
  html
    .replace(/<\/?(?:strong|code|span|time|a)\b[^>]*>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ");

describe("the API key form", () => {
  it("puts each field's error beside it, keeps what was typed and focuses the field to fix", async () => {
    const { tab } = await signedIn(s, "pro");
    const csrf = await tab.csrfToken();
    const reply = await tab.request("/settings/keys", { form: { csrf, name: "   " } });
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('role="alert">The key was not created: correct the form below.</div>');
    expect(reply.text).toMatch(/<input id="key-name"[^>]* aria-invalid="true" aria-describedby="key-name-error" autofocus>/);
    expect(reply.text).toContain('<p class="field-error" id="key-name-error">Give the key a name, so you can tell it apart later.</p>');
    expect(reply.text).toContain('<fieldset class="field" aria-describedby="scopes-error">');
    expect(reply.text).toContain('<p class="field-error" id="scopes-error">Choose at least one scope.</p>');
    // No scope was ticked, so none comes back ticked.
    expect(reply.text).not.toMatch(/name="scopes"[^>]* checked/);

    const long = await tab.request("/settings/keys", { form: { csrf, name: "n".repeat(101), scopes: ["briefing"] } });
    expect(long.status).toBe(400);
    expect(long.text).toContain('id="key-name-error">Must be at most 100 characters.</p>');
    expect(long.text).toContain(`value="${"n".repeat(101)}"`);
    expect(long.text).toMatch(/id="scope-briefing"[^>]* checked/);
    expect(long.text).not.toContain("scopes-error");
  });

  it("says when the next key may be created, in minutes, once the hourly limit is spent", async () => {
    const { tab } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken();
    for (const name of ["one", "two"]) {
      expect((await tab.request("/settings/keys", { form: { csrf, name, scopes: ["read"] } })).status).toBe(200);
    }
    s.clock.advance(20 * 60_000);
    const refused = await tab.request("/settings/keys", { form: { csrf, name: "three", scopes: ["read"] } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(40 * 60));
    expect(visible(refused.text)).toContain("At most 2 keys may be created per hour. You can create the next one in 40 minutes.");
    expect(refused.text).toContain('value="three"');
  });

  it("tells a plan without API access who can change it, and that keys kept from before are refused", async () => {
    const { tab, user } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken();
    expect((await tab.request("/settings/keys", { form: { csrf, name: "kept", scopes: ["read"] } })).status).toBe(200);
    await setUserPlan(s.db, user.email, "team_starter");
    const text = visible((await tab.request("/settings/keys")).text);
    expect(text).toContain("Your plan (team_starter) has no API access, so it cannot have keys.");
    expect(text).toContain("The pro and team_growth plans include read access; operator and team_enterprise include everything.");
    expect(text).toContain("The administrator of this Crew can change your plan (npx crew user set-plan).");
    expect(text).toContain("Your plan has no API access: requests with these keys are refused until the plan changes.");
    // The kept key can still be revoked.
    expect(text).toContain("Revoke key “kept”");
  });
});

describe("the revoke step of both credential tables", () => {
  it("keeps long names out of the buttons' visible text but in their accessible names", async () => {
    const { tab, user } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken();
    const name = "A key with a name long enough to make a very wide button if it were written on it";
    await tab.request("/settings/keys", { form: { csrf, name, scopes: ["agents"] } });
    const keys = (await tab.request("/settings/keys")).text;
    expect(keys).toContain(`<summary class="btn btn-danger-quiet">Revoke…<span class="sr-only"> “${name}”</span></summary>`);
    expect(keys).toContain(`<button type="submit" class="btn btn-danger">Revoke key<span class="sr-only"> “${name}”</span></button>`);
    expect(keys).toContain(`<p>Revoke “${name}”? Anything using it stops working at once.</p>`);
    expect(keys).toContain(
      '<th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th>',
    );

    const browser = new HttpBrowser(s.url);
    await browser.signIn(user.email);
    const app = "An application with a long registered name";
    const c = await connect(s.url, user.email, { browser, register: { client_name: app, redirect_uris: ["https://app.example/cb"] } });
    expect((await exchangeCode(s.url, c)).status).toBe(200);
    const apps = (await browser.request("/connected-apps")).html;
    expect(apps).toContain(`<summary class="btn btn-danger-quiet">Revoke…<span class="sr-only"> “${app}”</span></summary>`);
    expect(apps).toContain(`<button type="submit" class="btn btn-danger">Revoke<span class="sr-only"> “${app}”</span></button>`);
    expect(apps).toContain(`<th scope="row" data-label="Application">${app} <span class="muted small mono">${c.clientId}</span></th>`);
    expect(apps).toContain('<td data-label="Returns to" class="mono">app.example</td>');
    expect(apps).toContain('<td data-label="Connected" class="nowrap"><time');
  });
});

describe("the dashboard", () => {
  it("shows how long ago each agent ran in minutes, hours, then days, and 'never'", async () => {
    const { tab } = await signedIn(s, "pro");
    await insertPastRuns(
      s,
      [0.5, 30, 74].map((hoursAgo, agent) => ({ agent, status: "ok", hoursAgo, summary: "done" })),
      "run_age",
    );
    const text = visible((await tab.request("/dashboard")).text);
    expect(text).toContain(`${AGENTS[0]!.name} ${AGENTS[0]!.category} Healthy 30 min ago`);
    expect(text).toContain(`${AGENTS[1]!.name} ${AGENTS[1]!.category} Stale 30.0 h ago`);
    expect(text).toContain(`${AGENTS[2]!.name} ${AGENTS[2]!.category} Stale 3 days ago`);
    expect(text).toContain(`${AGENTS[3]!.name} ${AGENTS[3]!.category} Never ran never`);
  });
});
