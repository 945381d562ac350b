import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { matchRedirectUri, redirectHost, redirectUriProblem } from "../../src/lib/redirect-uri.ts";
import { validateClientMetadata } from "../../src/oauth/client-metadata.ts";
import { isValidS256Challenge, s256Challenge, verifyS256 } from "../../src/oauth/pkce.ts";
import { resolveResource } from "../../src/oauth/resource.ts";
import { capScopesToPlan, isScopeSubset, parseScopeParam } from "../../src/oauth/scopes.ts";

describe("redirect URI policy", () => {
  it.each([
    "https://claude.ai/api/mcp/auth_callback",
    "https://vscode.dev/redirect",
    "http://127.0.0.1:33418/",
    "http://localhost/callback",
    "http://[::1]:8080/cb",
    "cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback",
    "vscode://vscode.github-authentication/did-authenticate",
    "com.example.app:/oauth2redirect",
  ])("accepts %s", (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    ["http://example.com/cb", "must use https, or http only on a loopback host (localhost, 127.0.0.1, [::1])"],
    ["http://127.0.0.2/cb", "must use https, or http only on a loopback host (localhost, 127.0.0.1, [::1])"],
    ["https://example.com/cb#frag", "must not contain a fragment"],
    ["https://example.com/cb#", "must not contain a fragment"],
    ["javascript:alert(1)", expect.stringMatching(/^must not use this scheme/)],
    ["data:text/html,hi", expect.stringMatching(/^must not use this scheme/)],
    ["/relative/path", "must be an absolute URI"],
    ["", "must be a non-empty string"],
  ])("refuses %s", (uri, reason) => {
    expect(redirectUriProblem(uri)).toEqual(reason);
  });

  it.each([
    "view-source:https://crew.example/",
    "jar:https://evil.example/a.jar!/x",
    "chrome://settings",
    "chrome-extension://abcdef/cb",
    "moz-extension://abc/cb",
    "ms-settings:privacy",
    "about:blank",
    "blob:https://evil.example/uuid",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,hi",
    "intent://scan/#Intent;end",
    "ftp://example.com/cb",
    "mailto:a@example.com",
  ])("issue 11 item 6: refuses the non-private-use scheme of %s", (uri) => {
    expect(redirectUriProblem(uri)).toMatch(/must not use this scheme|must not contain a fragment/);
  });

  it("matches exactly, except that a loopback port is ignored (RFC 8252 §7.3)", () => {
    const registered = ["http://127.0.0.1/callback", "https://claude.ai/api/mcp/auth_callback", "http://localhost:3000/cb"];
    expect(matchRedirectUri(registered, "https://claude.ai/api/mcp/auth_callback")).toBe("https://claude.ai/api/mcp/auth_callback");
    expect(matchRedirectUri(registered, "http://127.0.0.1:49152/callback")).toBe("http://127.0.0.1/callback");
    expect(matchRedirectUri(registered, "http://localhost:4000/cb")).toBe("http://localhost:3000/cb");
    expect(matchRedirectUri(registered, "http://127.0.0.1:49152/other")).toBeNull();
    expect(matchRedirectUri(registered, "http://localhost:49152/callback")).toBeNull();
    expect(matchRedirectUri(registered, "https://claude.ai/api/mcp/auth_callback/")).toBeNull();
    expect(matchRedirectUri(registered, "https://claude.ai:8443/api/mcp/auth_callback")).toBeNull();
    expect(matchRedirectUri(registered, "http://127.0.0.1:49152/callback?x=1")).toBeNull();
  });

  it("names the host a consent page shows", () => {
    expect(redirectHost("https://claude.ai/api/mcp/auth_callback")).toBe("claude.ai");
    expect(redirectHost("http://127.0.0.1:33418/")).toBe("127.0.0.1:33418");
    expect(redirectHost("cursor://anysphere.cursor-retrieval/cb")).toBe("cursor://anysphere.cursor-retrieval");
  });
});

describe("scope parameter", () => {
  it("splits on any whitespace, ignores offline_access, defaults to crew:read", () => {
    expect(parseScopeParam("  crew:write\tcrew:read \n offline_access ")).toEqual({ ok: true, scopes: ["crew:read", "crew:write"] });
    expect(parseScopeParam(undefined)).toEqual({ ok: true, scopes: ["crew:read"] });
    expect(parseScopeParam("offline_access")).toEqual({ ok: true, scopes: ["crew:read"] });
    expect(parseScopeParam("crew:read crew:read")).toEqual({ ok: true, scopes: ["crew:read"] });
  });

  it("refuses unknown scopes", () => {
    expect(parseScopeParam("crew:read openid email")).toEqual({ ok: false, unknown: ["openid", "email"] });
  });

  it("caps scopes by plan", () => {
    expect(capScopesToPlan(["crew:read", "crew:write"], "lite")).toEqual([]);
    expect(capScopesToPlan(["crew:read", "crew:write"], "team_starter")).toEqual([]);
    expect(capScopesToPlan(["crew:write"], "pro")).toEqual(["crew:read"]);
    expect(capScopesToPlan(["crew:read", "crew:write"], "operator")).toEqual(["crew:read", "crew:write"]);
    expect(capScopesToPlan(["crew:admin"], "team_enterprise")).toEqual(["crew:admin"]);
  });

  it("lets a refresh narrow, never widen", () => {
    expect(isScopeSubset(["crew:read"], ["crew:read", "crew:write"])).toBe(true);
    expect(isScopeSubset(["crew:write"], ["crew:read"])).toBe(false);
  });
});

describe("PKCE S256", () => {
  // RFC 7636 Appendix B.
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

  it("computes the RFC 7636 example", () => {
    expect(s256Challenge(verifier)).toBe(challenge);
    expect(verifyS256(verifier, challenge)).toBe(true);
  });

  it("refuses a wrong or malformed verifier and malformed challenges", () => {
    expect(verifyS256(`${verifier.slice(0, -1)}A`, challenge)).toBe(false);
    expect(verifyS256("short", s256Challenge("short"))).toBe(false);
    expect(isValidS256Challenge(challenge)).toBe(true);
    expect(isValidS256Challenge(verifier.slice(0, 42))).toBe(false);
    expect(isValidS256Challenge(`${challenge.slice(0, 42)}=`)).toBe(false);
  });
});

describe("resource indicators", () => {
  const config = loadConfig({ BASE_URL: "https://crew.example.com" });
  it("accepts every name of Crew and defaults to /mcp", () => {
    expect(resolveResource(config, [])).toBe("https://crew.example.com/mcp");
    expect(resolveResource(config, ["https://crew.example.com"])).toBe("https://crew.example.com");
    expect(resolveResource(config, ["https://crew.example.com/"])).toBe("https://crew.example.com/");
    expect(resolveResource(config, ["https://crew.example.com/mcp"])).toBe("https://crew.example.com/mcp");
  });
  it("refuses anything else", () => {
    expect(resolveResource(config, ["https://other.example.com/mcp"])).toBeNull();
    expect(resolveResource(config, ["https://crew.example.com/api"])).toBeNull();
    expect(resolveResource(config, ["https://crew.example.com/mcp", "https://evil.example"])).toBeNull();
  });
});

describe("client registration metadata", () => {
  it("fills defaults and drops nulls and unknown fields", () => {
    const result = validateClientMetadata({
      redirect_uris: ["http://127.0.0.1/cb"],
      client_name: "Inspector",
      client_uri: null,
      logo_uri: "https://example.com/logo.png",
      scope: "openid crew:read offline_access",
      jwks: { keys: [] },
    });
    expect(result).toEqual({
      ok: true,
      metadata: {
        redirect_uris: ["http://127.0.0.1/cb"],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        client_name: "Inspector",
        logo_uri: "https://example.com/logo.png",
        scope: "crew:read",
      },
    });
  });

  it.each([
    [{}, "invalid_redirect_uri", "redirect_uris must be a non-empty array of strings"],
    [{ redirect_uris: [] }, "invalid_redirect_uri", "redirect_uris must be a non-empty array of strings"],
    [
      { redirect_uris: ["https://ok.example/cb", "http://evil.example/cb"] },
      "invalid_redirect_uri",
      "redirect_uris[1] must use https, or http only on a loopback host (localhost, 127.0.0.1, [::1])",
    ],
    [
      { redirect_uris: ["https://ok.example/cb"], token_endpoint_auth_method: "private_key_jwt" },
      "invalid_client_metadata",
      "token_endpoint_auth_method must be one of none, client_secret_basic, client_secret_post",
    ],
    [
      { redirect_uris: ["https://ok.example/cb"], grant_types: ["client_credentials"] },
      "invalid_client_metadata",
      "grant_types must include authorization_code",
    ],
    [
      { redirect_uris: ["https://ok.example/cb"], response_types: ["token"] },
      "invalid_client_metadata",
      'response_types must include "code"',
    ],
    [
      { redirect_uris: ["https://ok.example/cb"], client_uri: "javascript:alert(1)" },
      "invalid_client_metadata",
      "client_uri must be an http(s) URL",
    ],
    [
      { redirect_uris: ["https://ok.example/cb"], client_name: 42 },
      "invalid_client_metadata",
      "client_name must be a string of at most 200 characters",
    ],
  ])("refuses %j", (body, error, description) => {
    expect(validateClientMetadata(body as Record<string, unknown>)).toEqual({ ok: false, error, description });
  });
});

describe("consent page CSP", () => {
  it("lets the consent form lead to the client's redirect URI, and nowhere else", async () => {
    const { consentCsp } = await import("../../src/oauth/consent-page.ts");
    const loopback = consentCsp("http://127.0.0.1:5555/callback");
    expect(loopback).toContain("form-action 'self' http://127.0.0.1:5555");
    expect(loopback).toContain("frame-ancestors 'none'");
    expect(loopback.match(/form-action/g)).toHaveLength(1);
    expect(consentCsp("cursor://anysphere.cursor-retrieval/cb")).toContain("form-action 'self' cursor:");
  });
});
