/**
 * The whole flow driven by oauth4webapi, a strict client: discovery of both documents,
 * registration, authorization (sign-in and consent by form posts, as a browser), code exchange
 * with PKCE, a REST call, refresh rotation with its grace and replay detection, revocation.
 */
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeInBrowser, HttpBrowser } from "../helpers/oauth.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const insecure = { [oauth.allowInsecureRequests]: true } as const;

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/** The authorization server's metadata by RFC 8414 discovery. */
async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(s.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
}

/** Dynamic registration (RFC 7591) of a public client, one without a secret. */
async function registerPublic(
  as: oauth.AuthorizationServer,
  metadata: { redirect_uris: string[]; client_name?: string },
): Promise<oauth.Client> {
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { ...metadata, token_endpoint_auth_method: "none" }, insecure),
  );
  return { client_id: registered.client_id, token_endpoint_auth_method: "none" };
}

/** An authorization request with a fresh PKCE verifier (S256); `extra` adds parameters. */
async function authorizationUrl(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  redirectUri: string,
  extra: Record<string, string> = {},
): Promise<{ url: string; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  }).toString();
  return { url: url.href, verifier };
}

async function refreshWith(as: oauth.AuthorizationServer, client: oauth.Client, token: string) {
  const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure);
  return oauth.processRefreshTokenResponse(as, client, res);
}

async function refreshError(as: oauth.AuthorizationServer, client: oauth.Client, token: string): Promise<string> {
  try {
    await refreshWith(as, client, token);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return `${error.status} ${error.error}`;
    throw error;
  }
  return "succeeded";
}

describe("oauth4webapi drives the whole flow", () => {
  it("discovers, registers, authorizes, exchanges, calls, refreshes with grace and replay detection, revokes", async () => {
    const user = await s.createUser("operator");

    // Protected resource metadata for /mcp (RFC 9728 path insertion), then the AS metadata.
    const resourceId = new URL(`${s.url}/mcp`);
    const rs = await oauth.processResourceDiscoveryResponse(resourceId, await oauth.resourceDiscoveryRequest(resourceId, insecure));
    expect(rs.authorization_servers).toEqual([s.url]);
    expect(rs.scopes_supported).toEqual(["crew:read", "crew:write", "crew:admin"]);
    const rootId = new URL(s.url);
    const root = await oauth.processResourceDiscoveryResponse(rootId, await oauth.resourceDiscoveryRequest(rootId, insecure));
    expect(root.resource).toBe(s.url);
    const as = await discover();
    expect(as.issuer).toBe(s.url);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);

    const redirectUri = "http://127.0.0.1:4567/callback";
    const client = await registerPublic(as, { redirect_uris: [redirectUri], client_name: "oauth4webapi test" });

    const state = oauth.generateRandomState();
    const { url, verifier } = await authorizationUrl(as, client, redirectUri, {
      scope: "crew:read crew:write",
      state,
      resource: `${s.url}/mcp`,
    });

    const browser = new HttpBrowser(s.url);
    const back = await authorizeInBrowser(browser, url, { email: user.email });
    expect(back.consent).toContain("oauth4webapi test");
    expect(back.consent).toContain("127.0.0.1:4567");
    expect(back.status).toBe(303);
    const callback = new URL(back.location!);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get("iss")).toBe(s.url);

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokenRes = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
      additionalParameters: { resource: `${s.url}/mcp` },
      ...insecure,
    });
    expect(tokenRes.headers.get("cache-control")).toBe("no-store");
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenRes);
    expect(tokens.token_type).toBe("bearer"); // oauth4webapi lower-cases it
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe("crew:read crew:write");
    expect(tokens.refresh_token).toMatch(/^crewrt_/);

    // The token works on REST, reads and writes.
    const call = api(s.url, tokens.access_token);
    expect((await call("/api/mcp/agents")).status).toBe(200);
    const added = await call("/api/mcp/actions", { body: { title: "From OAuth" } });
    expect(added.status).toBe(200);

    // Rotation with a grace: R1 → R2 (new). R1 keeps working while no successor of it has been
    // used (a client retrying after a lost response gets R2'); once R2' is used, R1 is a replay.
    const r1 = tokens.refresh_token!;
    const second = await refreshWith(as, client, r1);
    expect(second.refresh_token).not.toBe(r1);
    expect((await api(s.url, second.access_token)("/api/mcp/agents")).status).toBe(200);
    const retried = await refreshWith(as, client, r1);
    expect(retried.refresh_token).not.toBe(second.refresh_token);
    const third = await refreshWith(as, client, retried.refresh_token!);
    expect(third.refresh_token).not.toBe(retried.refresh_token);
    expect(await refreshError(as, client, r1)).toBe("400 invalid_grant");
    // The replay revoked the whole grant: every token of it is dead.
    expect(await refreshError(as, client, third.refresh_token!)).toBe("400 invalid_grant");
    const dead = await api(s.url, third.access_token)("/api/mcp/agents");
    expect(dead.status).toBe(401);
    expect(dead.json.error).toBe("invalid_token");
  });

  it("revokes access and refresh tokens (RFC 7009)", async () => {
    const user = await s.createUser("pro");
    const as = await discover();
    const redirectUri = "http://localhost:9999/cb";
    const client = await registerPublic(as, { redirect_uris: [redirectUri] });
    const { url, verifier } = await authorizationUrl(as, client, redirectUri);
    const back = await authorizeInBrowser(new HttpBrowser(s.url), url, { email: user.email });
    expect(back.consent).toContain("An unnamed application");
    const params = oauth.validateAuthResponse(as, client, new URL(back.location!), oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure),
    );
    expect(tokens.scope).toBe("crew:read");

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure));
    expect((await api(s.url, tokens.access_token)("/api/mcp/agents")).status).toBe(401);
    // The refresh token still works after its access token was revoked…
    const again = await refreshWith(as, client, tokens.refresh_token!);
    expect((await api(s.url, again.access_token)("/api/mcp/agents")).status).toBe(200);
    // …until it is revoked, which ends the grant.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), again.refresh_token!, insecure));
    expect((await api(s.url, again.access_token)("/api/mcp/agents")).status).toBe(401);
    expect(await refreshError(as, client, again.refresh_token!)).toBe("400 invalid_grant");
    // Unknown tokens get 200 too (RFC 7009 §2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), "nonsense", insecure));
  });
});
