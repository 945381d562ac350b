/**
 * An authorization request without `scope` (the MCP SDK 1.12 client and others, issue 33): Crew
 * keeps crew:read as the default, says so on the consent page, and lets an operator tick "also
 * allow changes" (crew:write); a pro user, whose plan has no writes, gets no box. Real HTTP over
 * loopback: registration, sign-in, the consent form, the code exchange.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, exchangeCode, formFields, HttpBrowser, pkce, registerClient } from "../helpers/oauth.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const REDIRECT = "http://127.0.0.1/callback";

async function consentWithoutScope(email: string, scope?: string) {
  const client = await registerClient(s.url, { redirect_uris: [REDIRECT], client_name: "SDK 1.12 client" });
  const { verifier, challenge } = pkce();
  const url = authorizeUrl(s.url, {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    state: "no-scope",
    scope,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const browser = new HttpBrowser(s.url);
  await browser.signIn(email);
  const page = await browser.walk(url);
  expect(page.status).toBe(200);
  return { client, verifier, browser, page };
}

async function approve(flow: Awaited<ReturnType<typeof consentWithoutScope>>, alsoWrite: boolean) {
  const fields = formFields(flow.page.html, "/oauth/authorize");
  fields.set("decision", "approve");
  if (alsoWrite) fields.set("also_write", "on");
  const back = await flow.browser.request("/oauth/authorize", { form: fields });
  const callback = new URL(back.location!);
  const token = await exchangeCode(s.url, {
    clientId: flow.client.client_id,
    redirectUri: REDIRECT,
    verifier: flow.verifier,
    state: "no-scope",
    browser: flow.browser,
    callback,
    code: callback.searchParams.get("code")!,
  });
  expect(token.status).toBe(200);
  return token.json.scope as string;
}

describe("an authorization request without scope", () => {
  it("gives an operator read access by default, said on the page, and crew:write when ticked", async () => {
    const operator = await s.createUser("operator", "no-scope-operator@example.com");
    const plain = await consentWithoutScope(operator.email);
    expect(plain.page.html).toContain("did not say what it needs, so Crew gives it <strong>read access</strong> (crew:read) by default");
    expect(plain.page.html).toContain('name="also_write"');
    expect(await approve(plain, false)).toBe("crew:read");

    const ticked = await consentWithoutScope(operator.email);
    expect((await approve(ticked, true)).split(" ").sort()).toEqual(["crew:read", "crew:write"]);
  });

  it("offers no box on a plan without writes, and the box cannot widen a request that named its scope", async () => {
    const pro = await s.createUser("pro", "no-scope-pro@example.com");
    const flow = await consentWithoutScope(pro.email);
    expect(flow.page.html).toContain("includes read access only");
    expect(flow.page.html).not.toContain('name="also_write"');
    expect(await approve(flow, true)).toBe("crew:read");

    const operator = await s.createUser("operator", "named-scope-operator@example.com");
    const named = await consentWithoutScope(operator.email, "crew:read");
    expect(named.page.html).not.toContain('name="also_write"');
    expect(await approve(named, true)).toBe("crew:read");
  });
});
