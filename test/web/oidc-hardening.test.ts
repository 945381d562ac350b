/**
 * Single sign-on that cannot be hijacked (issue 33), against a real OpenID provider on loopback
 * (`oidc-provider`) that keeps email, email_verified and groups at UserInfo (its default): the
 * claims are read from UserInfo; an account an unverified email created is never linked to a
 * verified identity; linking ends the account's other sessions; another organization's user is
 * neither linked nor re-roled; a KELVIN SIGN address does not sign in as the "k" address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIER_SENTENCES } from "../../src/domain.ts";
import { linkIdentity } from "../../src/store/auth/identities.ts";
import { getUserByEmail } from "../../src/store/auth/users.ts";
import { createOrg } from "../../src/store/orgs/orgs.ts";
import { rows } from "../helpers/agents.ts";
import { HttpBrowser, type Step } from "../helpers/oauth.ts";
import { reserveIdp, type TestIdp } from "../helpers/oidc-provider.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let idp: TestIdp;
let s: TestServer;

beforeAll(async () => {
  idp = await reserveIdp({ claimsAt: "userinfo" });
  s = await startServer({
    env: {
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_NAME: "Corp SSO",
      OIDC_ROLE_CLAIM: "groups",
      OIDC_OWNER_VALUES: "crew-owners",
      OIDC_DEFAULT_PLAN: "pro",
    },
  });
  idp.start([`${s.url}/sign-in/oidc/callback`]);
  await s.createUser("operator", "first-owner@corp.example", "owner");
});
afterAll(async () => {
  await s?.close();
  await idp?.close();
});

async function walk(browser: HttpBrowser, url: string): Promise<Step> {
  let step = await browser.request(url);
  for (let hops = 0; hops < 20 && step.location; hops++) {
    if (!step.location.startsWith(browser.base) && !step.location.startsWith(idp.issuer)) break;
    step = await browser.request(step.location);
  }
  return step;
}

async function ssoSignIn(account: string, browser = new HttpBrowser(s.url)) {
  idp.nextAccount = account;
  const step = await walk(browser, "/sign-in/oidc?next=/dashboard");
  return { browser, step };
}

const sessionOf = async (browser: HttpBrowser) => {
  const res = await fetch(`${browser.base}/api/auth/session`, {
    headers: { Cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
  });
  return res.status === 200 ? (await res.json()).user : null;
};

describe("single sign-on, hardened", () => {
  it("reads email, email_verified and groups from UserInfo when the ID token lacks them", async () => {
    idp.accounts.set("uma-sub", { email: "uma@corp.example", email_verified: true, name: "Uma", groups: ["crew-owners"] });
    const { browser, step } = await ssoSignIn("uma-sub");
    expect(step.status).toBe(200);
    expect(step.url).toBe(`${s.url}/dashboard`);
    expect(await getUserByEmail(s.db, "uma@corp.example")).toMatchObject({ name: "Uma", plan: "pro", role: "owner" });
    expect(await sessionOf(browser)).toMatchObject({ email: "uma@corp.example" });
  });

  it("never links a verified identity into an account an unverified email created", async () => {
    idp.accounts.set("mallory-sub", { email: "victim@corp.example", email_verified: false, name: "Mallory", groups: [] });
    const attacker = await ssoSignIn("mallory-sub");
    expect(attacker.step.status).toBe(200);
    const pre = await getUserByEmail(s.db, "victim@corp.example");
    expect(pre).not.toBeNull();

    idp.accounts.set("victim-sub", { email: "victim@corp.example", email_verified: true, name: "Victim", groups: ["crew-owners"] });
    const victim = await ssoSignIn("victim-sub");
    expect(victim.step.status).toBe(403);
    expect(victim.step.html).toContain("was created by a sign-in whose provider had not verified the address");
    expect(await sessionOf(victim.browser)).toBeNull();
    expect(await rows(s.db, "SELECT user_id FROM user_identities WHERE subject = 'victim-sub'")).toEqual([]);
    // Nor did the group claim make the attacker's account an owner.
    expect((await getUserByEmail(s.db, "victim@corp.example"))?.role).toBe("member");
    expect((await sessionOf(attacker.browser))?.role ?? "member").toBe("member");
  });

  it("linking a verified identity ends every other session of that user", async () => {
    const vic = await s.createUser("operator", "vic@corp.example");
    const before = new HttpBrowser(s.url);
    await before.signIn("vic@corp.example");
    expect(await sessionOf(before)).toMatchObject({ id: vic.id });
    idp.accounts.set("vic-sub", { email: "vic@corp.example", email_verified: true, name: "Vic" });
    const linked = await ssoSignIn("vic-sub");
    expect(await sessionOf(linked.browser)).toMatchObject({ id: vic.id });
    expect(await sessionOf(before)).toBeNull();
  });

  it("links and re-roles only within OIDC_ORG", async () => {
    const other = await createOrg(s.db, "Other Co", "UTC", s.clock.now());
    const captured = await s.createUser("operator", "sam@corp.example", "member");
    await s.db.run("UPDATE users SET org_id = ? WHERE id = ?", [other.id, captured.id]);
    idp.accounts.set("sam-sub", { email: "sam@corp.example", email_verified: true, name: "Sam", groups: ["crew-owners"] });
    const refused = await ssoSignIn("sam-sub");
    expect(refused.step.status).toBe(403);
    expect(refused.step.html).toContain("belongs to another organization");
    expect(await rows(s.db, "SELECT user_id FROM user_identities WHERE subject = 'sam-sub'")).toEqual([]);

    // An identity linked to another organization's user (before this rule) signs in, but its claim re-roles nobody.
    const far = await s.createUser("operator", "far@corp.example", "member");
    await s.db.run("UPDATE users SET org_id = ? WHERE id = ?", [other.id, far.id]);
    await linkIdentity(s.db, idp.issuer, "far-sub", far.id, s.clock.now());
    idp.accounts.set("far-sub", { email: "far@corp.example", email_verified: true, name: "Far", groups: ["crew-owners"] });
    await ssoSignIn("far-sub");
    expect((await getUserByEmail(s.db, "far@corp.example"))?.role).toBe("member");
  });

  it("does not fold a KELVIN SIGN address onto the ASCII one", async () => {
    const kim = await s.createUser("operator", "kim@corp.example");
    idp.accounts.set("kelvin-sub", { email: "\u212Aim@corp.example", email_verified: true, name: "Not Kim" });
    const { browser, step } = await ssoSignIn("kelvin-sub");
    expect(step.status).toBe(403);
    expect(step.html).toContain("characters that read as other letters");
    expect(await sessionOf(browser)).toBeNull();
    expect(await rows(s.db, "SELECT user_id FROM user_identities WHERE subject = 'kelvin-sub'")).toEqual([]);
    expect(await getUserByEmail(s.db, "kim@corp.example")).toMatchObject({ id: kim.id, name: kim.name });
  });

  it("the Users page explains the plans, and it and the getting-started card name OIDC_DEFAULT_PLAN", async () => {
    const browser = new HttpBrowser(s.url);
    await browser.signIn("first-owner@corp.example");
    const users = await browser.request("/settings/users");
    expect(users.status).toBe(200);
    for (const sentence of Object.values(TIER_SENTENCES)) expect(users.html).toContain(sentence);
    expect(users.html).toContain("get the plan <code>pro</code> (<code>OIDC_DEFAULT_PLAN</code>)");
    await s.db.run("DELETE FROM actions");
    const dashboard = await browser.request("/dashboard");
    expect(dashboard.html).toContain("Getting started");
    expect(dashboard.html).toContain("People who sign in with Corp SSO for the first time get the plan <code>pro</code>");
  });
});
