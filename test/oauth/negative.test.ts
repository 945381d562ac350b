/** What the authorization server refuses, and how (OAuth 2.1, RFC 6749 §4.1.2.1 and §5.2, RFC 8707). */
import { describe, expect, it } from "vitest";
import { MINUTE } from "../../src/lib/clock.ts";
import { setUserPlan } from "../../src/store/auth/users.ts";
import {
  authorizeInBrowser,
  authorizeUrl,
  connect as connectAs,
  exchangeCode,
  formFields,
  HttpBrowser,
  pkce,
  postForm,
  registerClient,
  registeredAuthorizeUrl,
  signedInServer,
} from "../helpers/oauth.ts";
import { api, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let email: string;
let browser: HttpBrowser;
signedInServer((f) => ({ s, email, browser } = f));

const connect = (options: Parameters<typeof connectAs>[2] = {}) => connectAs(s.url, email, { browser, ...options });
/** A client whose redirect URI a person approved once: only then do request errors go back to it (RFC 9700 §4.11.2). */
const connectApproved = async (options: Parameters<typeof connectAs>[2] = {}) =>
  connect({ ...options, clientId: (await connect()).clientId });

const refresh = (clientId: string, token: string) =>
  postForm(`${s.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });

describe("PKCE", () => {
  it.each([
    ["plain", { code_challenge_method: "plain" }],
    ["a missing method", { code_challenge_method: undefined }],
    ["a missing challenge", { code_challenge: undefined, code_challenge_method: undefined }],
  ])("refuses %s with a redirect carrying invalid_request (to an approved client)", async (_, authorize) => {
    const c = await connectApproved({ authorize });
    expect(c.code).toBe("");
    expect(Object.fromEntries(c.callback.searchParams)).toEqual({
      error: "invalid_request",
      error_description: "PKCE with code_challenge_method=S256 is required.",
      state: c.state,
      iss: s.url,
    });
  });

  it("refuses a wrong verifier, and burns the code", async () => {
    const c = await connect();
    const wrong = await exchangeCode(s.url, c, { code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({
      error: "invalid_grant",
      error_description: "The authorization code or refresh token is invalid, expired or revoked.",
    });
    expect(wrong.headers.get("cache-control")).toBe("no-store");
    expect((await exchangeCode(s.url, c)).json.error).toBe("invalid_grant");
  });

  it("requires the verifier", async () => {
    const c = await connect();
    const res = await exchangeCode(s.url, c, { code_verifier: undefined });
    expect(res.json.error).toBe("invalid_request");
  });
});

describe("authorization codes", () => {
  it("expire after 10 minutes", async () => {
    const c = await connect();
    s.clock.advance(10 * MINUTE + 1000);
    const res = await exchangeCode(s.url, c);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_grant");
  });

  it("are single use: a second use fails and revokes the tokens of the first", async () => {
    const c = await connect();
    const first = await exchangeCode(s.url, c);
    expect(first.status).toBe(200);
    expect((await api(s.url, first.json.access_token)("/api/mcp/agents")).status).toBe(200);
    const second = await exchangeCode(s.url, c);
    expect(second.json.error).toBe("invalid_grant");
    expect((await api(s.url, first.json.access_token)("/api/mcp/agents")).status).toBe(401);
    expect((await refresh(c.clientId, first.json.refresh_token)).json.error).toBe("invalid_grant");
  });

  it("are bound to the client and the redirect URI", async () => {
    const c = await connect();
    const other = await registerClient(s.url);
    expect((await exchangeCode(s.url, c, { client_id: other.client_id })).json.error).toBe("invalid_grant");
    const d = await connect();
    expect((await exchangeCode(s.url, d, { redirect_uri: "http://127.0.0.1/other" })).json.error).toBe("invalid_grant");
  });

  it("refuses a foreign resource at the token endpoint", async () => {
    const c = await connect();
    const res = await exchangeCode(s.url, c, { resource: "https://other.example/mcp" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: "invalid_target", error_description: "The resource is not served by this server." });
  });

  it("refuses unsupported grant types and non-form bodies", async () => {
    const c = await connect();
    expect((await exchangeCode(s.url, c, { grant_type: "password" })).json.error).toBe("unsupported_grant_type");
    const json = await fetch(`${s.url}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe("invalid_request");
  });
});

describe("the authorization endpoint", () => {
  it("shows an error page, never a redirect, for an unregistered redirect_uri or unknown client", async () => {
    const client = await registerClient(s.url);
    const { challenge } = pkce();
    const params = { response_type: "code", code_challenge: challenge, code_challenge_method: "S256" };
    for (const url of [
      authorizeUrl(s.url, { ...params, client_id: client.client_id, redirect_uri: "https://evil.example/cb" }),
      authorizeUrl(s.url, { ...params, client_id: client.client_id, redirect_uri: "http://127.0.0.1/callback#x" }),
      authorizeUrl(s.url, { ...params, client_id: "crewcl_unknown", redirect_uri: "http://127.0.0.1/callback" }),
      authorizeUrl(s.url, { ...params, redirect_uri: "http://127.0.0.1/callback" }),
    ]) {
      const res = await browser.request(url);
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.html).toContain("This sign-in link does not work");
    }
  });

  it("redirects invalid_target for a foreign resource and invalid_scope for an unknown scope (to an approved client)", async () => {
    const target = await connectApproved({ authorize: { resource: "https://other.example/mcp" } });
    expect(target.callback.searchParams.get("error")).toBe("invalid_target");
    expect(target.callback.searchParams.get("iss")).toBe(s.url);
    const scope = await connectApproved({ authorize: { scope: "crew:read openid" } });
    expect(scope.callback.searchParams.get("error")).toBe("invalid_scope");
    expect(scope.callback.searchParams.get("state")).toBe(scope.state);
  });

  it("sends a denial back as access_denied with state and iss", async () => {
    const c = await connect({ decision: "deny" });
    expect(c.callback.searchParams.get("error")).toBe("access_denied");
    expect(c.callback.searchParams.get("state")).toBe(c.state);
    expect(c.callback.searchParams.get("iss")).toBe(s.url);
    expect(c.callback.searchParams.has("code")).toBe(false);
  });

  it("sends a signed-out visitor to sign in, then back to the same request", async () => {
    const fresh = new HttpBrowser(s.url);
    const { client, url } = await registeredAuthorizeUrl(s.url);
    const first = await fresh.request(url);
    expect(first.status).toBe(303);
    const signIn = new URL(first.location!);
    expect(signIn.pathname).toBe("/sign-in");
    expect(new URL(signIn.searchParams.get("next")!, s.url).searchParams.get("client_id")).toBe(client.client_id);
    const done = await authorizeInBrowser(fresh, url, { email });
    expect(done.consent).toContain("Connect Test Client to Crew?");
    expect(new URL(done.location!).searchParams.get("code")).toMatch(/^crewac_/);
  });

  it("refuses a consent form without the session's CSRF token or from another origin", async () => {
    const { url } = await registeredAuthorizeUrl(s.url);
    const page = await browser.request(url);
    const fields = formFields(page.html, "/oauth/authorize");
    fields.set("decision", "approve");
    const forged = new URLSearchParams(fields);
    forged.delete("csrf");
    const noToken = await browser.request("/oauth/authorize", { form: forged });
    expect(noToken.status).toBe(403);
    expect(noToken.location).toBeNull();
    const crossSite = await browser.request("/oauth/authorize", { form: fields, origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.location).toBeNull();
  });
});

describe("plans", () => {
  it("tells a lite user their plan has no access and lets them only cancel", async () => {
    const lite = await s.createUser("lite");
    const liteBrowser = new HttpBrowser(s.url);
    const { url } = await registeredAuthorizeUrl(s.url);
    const page = await authorizeInBrowser(liteBrowser, url, { email: lite.email, decision: "approve" });
    expect(page.consent).toContain("does not include API or MCP access");
    expect(page.consent).not.toContain('value="approve"');
    expect(page.status).toBe(403);
    expect(page.location).toBeNull();
  });

  it("caps a pro user's consent to crew:read", async () => {
    const pro = await s.createUser("pro");
    const c = await connectAs(s.url, pro.email, { authorize: { scope: "crew:write" } });
    const res = await exchangeCode(s.url, c);
    expect(res.json.scope).toBe("crew:read");
  });

  it("cuts a downgraded user's token to what the new plan includes, at once", async () => {
    const user = await s.createUser("operator");
    const c = await connectAs(s.url, user.email);
    const { access_token } = (await exchangeCode(s.url, c)).json;
    const call = api(s.url, access_token);
    expect((await call("/api/mcp/actions", { body: { title: "Before" } })).status).toBe(200);
    await setUserPlan(s.db, user.email, "pro");
    const refused = await call("/api/mcp/actions", { body: { title: "After" } });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("plan_upgrade_required");
    expect((await call("/api/mcp/agents")).status).toBe(200);
    await setUserPlan(s.db, user.email, "lite");
    expect((await call("/api/mcp/agents")).json.error).toBe("plan_upgrade_required");
  });
});

describe("tokens", () => {
  it("answer 401 invalid_token with the challenge once expired, so clients refresh", async () => {
    const c = await connect();
    const tokens = (await exchangeCode(s.url, c)).json;
    s.clock.advance(60 * MINUTE);
    const res = await api(s.url, tokens.access_token)("/api/mcp/agents");
    expect(res.status).toBe(401);
    expect(res.json.error).toBe("invalid_token");
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${s.url}/.well-known/oauth-protected-resource"`);
    const again = await refresh(c.clientId, tokens.refresh_token);
    expect(again.status).toBe(200);
    expect((await api(s.url, again.json.access_token)("/api/mcp/agents")).status).toBe(200);
  });

  it("refuse a refresh token presented by another client, or wider scopes", async () => {
    const c = await connect({ authorize: { scope: "crew:read" } });
    const tokens = (await exchangeCode(s.url, c)).json;
    const other = await registerClient(s.url);
    expect((await refresh(other.client_id, tokens.refresh_token)).json.error).toBe("invalid_grant");
    const wider = await postForm(`${s.url}/oauth/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: c.clientId,
      scope: "crew:write",
    });
    expect(wider.json.error).toBe("invalid_scope");
    const narrower = await postForm(`${s.url}/oauth/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: c.clientId,
      scope: "crew:read",
    });
    expect(narrower.status).toBe(200);
  });

  it("treat a superseded sibling refresh token as a replay", async () => {
    const c = await connect();
    const r1 = (await exchangeCode(s.url, c)).json.refresh_token;
    const lost = (await refresh(c.clientId, r1)).json; // response lost by the client
    const retried = (await refresh(c.clientId, r1)).json; // the retry: lost.refresh_token is superseded
    expect((await refresh(c.clientId, retried.refresh_token)).status).toBe(200);
    expect((await refresh(c.clientId, lost.refresh_token)).json.error).toBe("invalid_grant");
    expect((await api(s.url, retried.access_token)("/api/mcp/agents")).status).toBe(401);
  });

  it("expire refresh tokens after 30 days", async () => {
    const c = await connect();
    const tokens = (await exchangeCode(s.url, c)).json;
    s.clock.advance(30 * 24 * 60 * MINUTE + 1000);
    expect((await refresh(c.clientId, tokens.refresh_token)).json.error).toBe("invalid_grant");
  });
});
