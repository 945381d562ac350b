/**
 * Single sign-on (issue 25) against a real OpenID provider on loopback (`oidc-provider`): a first
 * sign-in creates the user, a verified email links an existing one (an unverified one is refused),
 * the role follows the groups claim at every sign-in (the last owner stays), a deactivated user is
 * refused, a tampered state is refused, OIDC_ONLY turns passwords off, and an MCP client's OAuth
 * authorization is completed through SSO.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../../src/store/audit/audit.ts";
import { deactivateUser, getUserByEmail } from "../../src/store/auth/users.ts";
import { rows } from "../helpers/agents.ts";
import { authorizeUrl, exchangeCode, formFields, HttpBrowser, pkce, registerClient, type Step } from "../helpers/oauth.ts";
import { reserveIdp, type TestIdp } from "../helpers/oidc-provider.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let idp: TestIdp;
let s: TestServer;
let only: TestServer;

beforeAll(async () => {
  idp = await reserveIdp();
  const env = {
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_NAME: "Corp SSO",
    OIDC_ROLE_CLAIM: "groups",
    OIDC_OWNER_VALUES: "crew-owners,admins",
    OIDC_DEFAULT_PLAN: "pro",
  };
  s = await startServer({ env });
  only = await startServer({ env: { ...env, OIDC_ONLY: "1" } });
  idp.start([`${s.url}/sign-in/oidc/callback`, `${only.url}/sign-in/oidc/callback`]);
});
afterAll(async () => {
  await s?.close();
  await only?.close();
  await idp?.close();
});

/** Follows redirects across Crew and the provider; stops at a page or a redirect elsewhere. */
async function walk(browser: HttpBrowser, url: string, stopAt?: (location: string) => boolean): Promise<Step> {
  let step = await browser.request(url);
  for (let hops = 0; hops < 20 && step.location; hops++) {
    if (stopAt?.(step.location)) break;
    if (!step.location.startsWith(browser.base) && !step.location.startsWith(idp.issuer)) break;
    step = await browser.request(step.location);
  }
  return step;
}

async function ssoSignIn(server: TestServer, account: string, next = "/dashboard") {
  idp.nextAccount = account;
  const browser = new HttpBrowser(server.url);
  const page = await browser.request(`/sign-in?next=${encodeURIComponent(next)}`);
  expect(page.html).toContain(`href="/sign-in/oidc?next=${encodeURIComponent(next)}"`);
  const step = await walk(browser, `/sign-in/oidc?next=${encodeURIComponent(next)}`);
  return { browser, step };
}

const sessionOf = async (browser: HttpBrowser) => {
  const res = await fetch(`${browser.base}/api/auth/session`, {
    headers: { Cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
  });
  return res.status === 200 ? (await res.json()).user : null;
};

describe("sign in with OIDC", () => {
  it("creates a user at first sign-in (default plan, role by claim), then matches by (issuer, subject)", async () => {
    await s.createUser("operator", "first-owner@corp.example", "owner");
    idp.accounts.set("alice-sub", { email: "alice@corp.example", email_verified: true, name: "Alice", groups: ["crew-owners"] });
    const { browser, step } = await ssoSignIn(s, "alice-sub");
    expect(step.status).toBe(200);
    expect(step.url).toBe(`${s.url}/dashboard`);
    const alice = await getUserByEmail(s.db, "alice@corp.example");
    expect(alice).toMatchObject({ name: "Alice", plan: "pro", role: "owner", orgId: s.org.id });
    expect(await sessionOf(browser)).toMatchObject({ email: "alice@corp.example" });
    expect(await rows(s.db, "SELECT issuer, subject, user_id FROM user_identities WHERE subject = 'alice-sub'")).toEqual([
      { issuer: idp.issuer, subject: "alice-sub", user_id: alice!.id },
    ]);
    const audit = await listAudit(s.db, s.org.id, 20);
    expect(audit.map((a) => a.event)).toEqual(expect.arrayContaining(["user.created", "sign_in.succeeded"]));

    // The email changed at the provider: still the same user, matched by subject.
    idp.accounts.set("alice-sub", { email: "alice.new@corp.example", email_verified: true, name: "Alice", groups: ["crew-owners"] });
    await ssoSignIn(s, "alice-sub");
    expect(await getUserByEmail(s.db, "alice.new@corp.example")).toBeNull();
  });

  it("follows the role claim at every sign-in; the last owner stays an owner", async () => {
    idp.accounts.set("alice-sub", { email: "alice@corp.example", email_verified: true, name: "Alice", groups: [] });
    await ssoSignIn(s, "alice-sub");
    expect((await getUserByEmail(s.db, "alice@corp.example"))?.role).toBe("member");
    idp.accounts.set("alice-sub", { email: "alice@corp.example", email_verified: true, name: "Alice", groups: "admins" });
    await ssoSignIn(s, "alice-sub");
    expect((await getUserByEmail(s.db, "alice@corp.example"))?.role).toBe("owner");

    // Alone as owner in another organization's stead: the sole owner of the only-server's org keeps the role.
    idp.accounts.set("solo-sub", { email: "solo@corp.example", email_verified: true, name: "Solo", groups: ["crew-owners"] });
    await ssoSignIn(only, "solo-sub");
    idp.accounts.set("solo-sub", { email: "solo@corp.example", email_verified: true, name: "Solo", groups: [] });
    await ssoSignIn(only, "solo-sub");
    expect((await getUserByEmail(only.db, "solo@corp.example"))?.role).toBe("owner");
  });

  it("links an existing user by verified email only", async () => {
    const bob = await s.createUser("operator", "bob@corp.example");
    idp.accounts.set("bob-sub", { email: "Bob@corp.example", email_verified: true, name: "Bob" });
    const linked = await ssoSignIn(s, "bob-sub");
    expect(await sessionOf(linked.browser)).toMatchObject({ id: bob.id });
    expect(await rows(s.db, "SELECT user_id FROM user_identities WHERE subject = 'bob-sub'")).toEqual([{ user_id: bob.id }]);

    await s.createUser("operator", "carol@corp.example");
    idp.accounts.set("carol-sub", { email: "carol@corp.example", email_verified: false, name: "Carol" });
    const refused = await ssoSignIn(s, "carol-sub");
    expect(refused.step.status).toBe(403);
    expect(refused.step.html).toContain("has not verified that address");
    expect(await sessionOf(refused.browser)).toBeNull();
    expect(await rows(s.db, "SELECT user_id FROM user_identities WHERE subject = 'carol-sub'")).toEqual([]);
  });

  it("refuses a deactivated user", async () => {
    const dave = await s.createUser("operator", "dave@corp.example");
    idp.accounts.set("dave-sub", { email: "dave@corp.example", email_verified: true, name: "Dave" });
    await ssoSignIn(s, "dave-sub");
    await deactivateUser(s.db, s.org.id, dave.id, { kind: "cli" }, s.clock.now());
    const refused = await ssoSignIn(s, "dave-sub");
    expect(refused.step.status).toBe(403);
    expect(refused.step.html).toContain("deactivated");
    expect(await sessionOf(refused.browser)).toBeNull();
  });

  it("refuses a tampered state", async () => {
    idp.accounts.set("erin-sub", { email: "erin@corp.example", email_verified: true, name: "Erin" });
    idp.nextAccount = "erin-sub";
    const browser = new HttpBrowser(s.url);
    const atCallback = await walk(browser, "/sign-in/oidc?next=/dashboard", (l) => l.startsWith(`${s.url}/sign-in/oidc/callback`));
    const callback = new URL(atCallback.location!);
    callback.searchParams.set("state", `${callback.searchParams.get("state")}x`);
    const answer = await browser.request(callback.href);
    expect(answer.status).toBe(400);
    expect(answer.html).toContain("does not check out");
    expect(await sessionOf(browser)).toBeNull();
    expect(await getUserByEmail(s.db, "erin@corp.example")).toBeNull();
  });

  it("OIDC_ONLY hides and refuses password sign-in", async () => {
    const pat = await only.createUser("operator", "pat@corp.example");
    const page = await (await fetch(`${only.url}/sign-in`)).text();
    expect(page).toContain("Sign in with Corp SSO");
    expect(page).not.toContain('action="/sign-in"');
    const json = await fetch(`${only.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: only.url },
      body: JSON.stringify({ email: pat.email, password: "correct horse battery staple" }),
    });
    expect(json.status).toBe(403);
    expect((await json.json()).message).toBe("Password sign-in is off here: use Sign in with Corp SSO.");
  });

  it("completes an MCP client's OAuth authorization through SSO", async () => {
    idp.accounts.set("mcp-sub", { email: "mcp-user@corp.example", email_verified: true, name: "MCP User" });
    await s.createUser("operator", "mcp-user@corp.example");
    idp.nextAccount = "mcp-sub";
    const client = await registerClient(s.url, { redirect_uris: ["http://127.0.0.1/callback"] });
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(s.url, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1/callback",
      scope: "crew:read",
      state: "mcp-state",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    const browser = new HttpBrowser(s.url);
    const signIn = await browser.walk(url);
    expect(signIn.html).toContain("Sign in with Corp SSO");
    const sso = /href="(\/sign-in\/oidc\?next=[^"]+)"/.exec(signIn.html)?.[1]?.replace(/&amp;/g, "&");
    const consent = await walk(browser, sso!);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('action="/oauth/authorize"');
    const fields = formFields(consent.html, "/oauth/authorize");
    fields.set("decision", "approve");
    const back = await browser.request("/oauth/authorize", { form: fields });
    const callback = new URL(back.location!);
    expect(callback.searchParams.get("state")).toBe("mcp-state");
    const token = await exchangeCode(s.url, {
      clientId: client.client_id,
      redirectUri: "http://127.0.0.1/callback",
      verifier,
      state: "mcp-state",
      browser,
      callback,
      code: callback.searchParams.get("code")!,
    });
    expect(token.status).toBe(200);
    const tools = await fetch(`${s.url}/api/mcp/agents`, { headers: { Authorization: `Bearer ${token.json.access_token}` } });
    expect(tools.status).toBe(200);
  });
});
