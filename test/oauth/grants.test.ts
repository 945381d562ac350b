/** Connected applications: GET/DELETE /api/oauth/grants (session) and the /connected-apps page. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, exchangeCode, formFields, HttpBrowser, postForm } from "../helpers/oauth.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const cookieOf = (b: HttpBrowser) => [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

async function sessionCall(b: HttpBrowser, path: string, method = "GET") {
  const res = await fetch(`${s.url}${path}`, { method, headers: { Cookie: cookieOf(b), Origin: s.url } });
  return { status: res.status, json: await res.json() };
}

async function connectedUser(plan: "operator" | "pro" = "operator") {
  const user = await s.createUser(plan);
  const browser = new HttpBrowser(s.url);
  await browser.signIn(user.email);
  const c = await connect(s.url, user.email, {
    browser,
    register: { client_name: "Claude", redirect_uris: ["https://claude.ai/api/mcp/auth_callback"] },
  });
  const tokens = (await exchangeCode(s.url, c)).json;
  return { user, browser, c, tokens };
}

describe("GET/DELETE /api/oauth/grants", () => {
  it("lists the signed-in user's connected applications and revokes one at once", async () => {
    const { browser, c, tokens } = await connectedUser();
    const listed = await sessionCall(browser, "/api/oauth/grants");
    expect(listed.status).toBe(200);
    expect(listed.json.grants).toEqual([
      {
        id: expect.stringMatching(/^grt_/),
        clientId: c.clientId,
        clientName: "Claude",
        redirectHost: "claude.ai",
        scopes: ["crew:read", "crew:write"],
        resource: `${s.url}/mcp`,
        createdAt: new Date(s.clock.now()).toISOString(),
        lastUsedAt: new Date(s.clock.now()).toISOString(),
      },
    ]);
    const id = listed.json.grants[0].id;
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(200);

    const revoked = await sessionCall(browser, `/api/oauth/grants?id=${id}`, "DELETE");
    expect(revoked).toEqual({ status: 200, json: { ok: true } });
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(401);
    const refreshed = await postForm(`${s.url}/oauth/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: c.clientId,
    });
    expect(refreshed.json.error).toBe("invalid_grant");
    expect((await sessionCall(browser, "/api/oauth/grants")).json.grants).toEqual([]);
    expect((await sessionCall(browser, `/api/oauth/grants?id=${id}`, "DELETE")).status).toBe(404);
  });

  it("issue 11 item 19: a connected application's last use follows its use, written at most once a minute", async () => {
    const { browser, tokens } = await connectedUser();
    const lastUsed = async () => (await sessionCall(browser, "/api/oauth/grants")).json.grants[0].lastUsedAt;
    const issuedAt = new Date(s.clock.now()).toISOString();
    s.clock.advance(30_000);
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(200);
    expect(await lastUsed()).toBe(issuedAt); // within the minute: not written again
    s.clock.advance(60_000);
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(200);
    expect(await lastUsed()).toBe(new Date(s.clock.now()).toISOString());
  });

  it("issue 11 item 19: cancelling on a plan without API access tells the application which plan", async () => {
    const user = await s.createUser("lite");
    const c = await connect(s.url, user.email, { decision: "deny" });
    expect(c.callback.searchParams.get("error")).toBe("access_denied");
    expect(c.callback.searchParams.get("error_description")).toMatch(/plan \(lite\) does not include API or MCP access/);
    const other = await s.createUser("operator");
    const denied = await connect(s.url, other.email, { decision: "deny" });
    expect(denied.callback.searchParams.get("error_description")).toBe("The user denied the request.");
  });

  it("keeps users apart and refuses Bearer credentials", async () => {
    const a = await connectedUser();
    const b = await connectedUser("pro");
    const aGrant = (await sessionCall(a.browser, "/api/oauth/grants")).json.grants[0].id;
    const bList = await sessionCall(b.browser, "/api/oauth/grants");
    expect(bList.json.grants.map((g: { id: string }) => g.id)).not.toContain(aGrant);
    expect(bList.json.grants[0].scopes).toEqual(["crew:read"]);
    expect((await sessionCall(b.browser, `/api/oauth/grants?id=${aGrant}`, "DELETE")).status).toBe(404);
    expect((await api(s.url, a.tokens.access_token)("/api/mcp/agents")).status).toBe(200);
    expect((await api(s.url, a.tokens.access_token)("/api/oauth/grants")).status).toBe(401);
    expect((await api(s.url)("/api/oauth/grants")).status).toBe(401);
    expect((await sessionCall(a.browser, "/api/oauth/grants?id=nope", "DELETE")).status).toBe(400);
  });
});

describe("/connected-apps", () => {
  it("lists each application and revokes it by a CSRF-checked form", async () => {
    const { browser, tokens } = await connectedUser();
    const page = await browser.request("/connected-apps");
    expect(page.status).toBe(200);
    expect(page.html).toContain("Claude");
    expect(page.html).toContain("claude.ai");
    expect(page.html).toContain("crew:read, crew:write");
    const fields = formFields(page.html, "/connected-apps/revoke");

    const forged = new URLSearchParams(fields);
    forged.set("csrf", "wrong");
    expect((await browser.request("/connected-apps/revoke", { form: forged })).status).toBe(403);
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(200);

    const done = await browser.request("/connected-apps/revoke", { form: fields });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${s.url}/connected-apps?revoked=1`);
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(401);
    const after = await browser.request("/connected-apps?revoked=1");
    expect(after.html).toContain("Application disconnected.");
    expect(after.html).toContain("No applications are connected.");
  });

  it("sends a signed-out visitor to sign in", async () => {
    const res = await new HttpBrowser(s.url).request("/connected-apps");
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${s.url}/sign-in?next=%2Fconnected-apps`);
  });
});
