/**
 * Issue 18 items 8 and 13. The authorization endpoint is not an open redirector (RFC 9700 §4.11.2):
 * a malformed request goes back to a redirect URI only when a person once approved that URI on the
 * consent page, and registration refuses schemes the operating system hands to a local program
 * (RFC 8252 §7.1: private-use schemes are reverse-domain, plus the known clients' own). The token
 * request repeats a redirect_uri the authorization request sent (RFC 6749 §4.1.3).
 */
import { describe, expect, it } from "vitest";
import { redirectUriProblem } from "../../src/lib/redirect-uri.ts";
import {
  authorizeUrl,
  connect as connectAs,
  exchangeCode,
  type HttpBrowser,
  pkce,
  registerClient,
  signedInServer,
} from "../helpers/oauth.ts";
import type { TestServer } from "../helpers/server.ts";

let s: TestServer;
let email: string;
let browser: HttpBrowser;
signedInServer((f) => ({ s, email, browser } = f));

const connect = (options: Parameters<typeof connectAs>[2] = {}) => connectAs(s.url, email, { browser, ...options });

const OS_HANDLERS = [
  "search-ms:query=invoice&crumb=location:\\\\evil.example\\share",
  "search:query=x",
  "shell:startup",
  "hcp://system/sysinfo",
  "help:runscript=x",
  "itms-services://?action=download-manifest&url=https://evil.example/m.plist",
  "microsoft-edge:https://evil.example/",
  "ms-msdt:/id PCWDiagnostic",
  "msdt:/id PCWDiagnostic",
  "tn3270://evil.example",
  "rlogin://evil.example",
  "x-javascript:alert(1)",
  "steam://run/1",
  "zoommtg://zoom.us/join",
];

describe("registration: redirect URI schemes", () => {
  it.each(OS_HANDLERS)("refuses the operating-system handler %s", async (uri) => {
    expect(redirectUriProblem(uri)).toMatch(/^must not use this scheme/);
    const res = await fetch(`${s.url}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ redirect_uris: [uri] }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("invalid_redirect_uri");
  });

  it("accepts https, loopback http, reverse-domain schemes and the known clients' schemes", async () => {
    for (const uri of [
      "https://claude.ai/api/mcp/auth_callback",
      "http://127.0.0.1:33418/callback",
      "com.example.app:/oauth2redirect",
      "io.github.someone.mcp-client://callback",
      "cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback",
      "vscode://vscode.github-authentication/did-authenticate",
      "vscode-insiders://vscode.github-authentication/did-authenticate",
      "windsurf://codeium.windsurf/oauth/callback",
    ]) {
      expect(redirectUriProblem(uri), uri).toBeNull();
      expect((await registerClient(s.url, { redirect_uris: [uri] })).redirect_uris).toEqual([uri]);
    }
  });
});

describe("authorization errors and unapproved redirect URIs", () => {
  const malformed = (clientId: string, redirectUri: string) => ({
    response_type: "token",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "st",
  });

  it.each([
    ["an unsupported response_type", { response_type: "token" }, "Only response_type=code is supported."],
    ["a missing response_type", { response_type: undefined }, "missing a parameter or malformed"],
    ["an unknown scope", { response_type: "code", scope: "crew:read openid" }, "The requested scope is unknown."],
    ["a foreign resource", { response_type: "code", resource: "https://other.example/mcp" }, "not served by this server"],
    ["no PKCE", { response_type: "code", code_challenge: undefined }, "PKCE"],
  ])("a never-approved client's request with %s gets an error page, not a redirect to its URI", async (_, overrides, says) => {
    const client = await registerClient(s.url, { redirect_uris: ["https://phish.example/landing"] });
    const res = await browser.request(
      authorizeUrl(s.url, { ...malformed(client.client_id, "https://phish.example/landing"), ...overrides }),
    );
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.html).toContain(says);
    expect(res.html).toContain("phish.example");
    expect(res.html).not.toContain('href="https://phish.example');
  });

  it("once a person approved the client's redirect URI, errors go back to it with state and iss", async () => {
    const approved = await connect();
    expect(approved.code).not.toBe("");
    const res = await browser.request(authorizeUrl(s.url, malformed(approved.clientId, approved.redirectUri)));
    expect(res.status).toBe(302);
    const back = new URL(res.location ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(approved.redirectUri);
    expect(back.searchParams.get("error")).toBe("unsupported_response_type");
    expect(back.searchParams.get("state")).toBe("st");
    expect(back.searchParams.get("iss")).toBe(s.url);
  });

  it("a denial on the consent page, where the person saw the destination, still goes back as access_denied", async () => {
    const c = await connect({ decision: "deny" });
    expect(c.callback.searchParams.get("error")).toBe("access_denied");
  });
});

describe("the token request binds redirect_uri", () => {
  it("is refused without the redirect_uri the authorization request sent, or with another one", async () => {
    const missing = await exchangeCode(s.url, await connect(), { redirect_uri: undefined });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe("invalid_request");
    const wrong = await exchangeCode(s.url, await connect(), { redirect_uri: "http://127.0.0.1/other" });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe("invalid_grant");
  });

  it("with it, the code is exchanged", async () => {
    const c = await connect();
    const ok = await exchangeCode(s.url, c);
    expect(ok.status).toBe(200);
    expect(ok.json.access_token).toBeTruthy();
  });

  it("is optional when the authorization request left redirect_uri out (one registered URI)", async () => {
    const c = await connect({ authorize: { redirect_uri: undefined } });
    const ok = await exchangeCode(s.url, c, { redirect_uri: undefined });
    expect(ok.status).toBe(200);
  });
});
