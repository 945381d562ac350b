/** What real MCP clients do that a strict reading would refuse (src/docs/notes/oauth.md#what-real-clients-do "Real MCP clients and OAuth"). */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import {
  basicAuth,
  connect as connectAs,
  exchangeCode,
  type HttpBrowser,
  postForm,
  registerClient,
  signedInServer,
} from "../helpers/oauth.ts";
import { api, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let email: string;
/** One signed-in browser for the whole file: sign-in hashing is slow by design. */
let browser: HttpBrowser;
signedInServer((f) => ({ s, email, browser } = f));

const connect = (base: string, who: string, options: Parameters<typeof connectAs>[2] = {}) => connectAs(base, who, { browser, ...options });

describe("discovery", () => {
  it("serves RFC 8414 metadata built from BASE_URL", async () => {
    const res = await api(s.url)("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      issuer: s.url,
      authorization_endpoint: `${s.url}/oauth/authorize`,
      token_endpoint: `${s.url}/oauth/token`,
      registration_endpoint: `${s.url}/oauth/register`,
      revocation_endpoint: `${s.url}/oauth/revoke`,
      scopes_supported: ["crew:read", "crew:write", "crew:admin"],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      service_documentation: `${s.url}/docs`,
    });
    expect(res.json).not.toHaveProperty("authorization_response_iss_parameter_supported");
  });

  it("serves both protected resource documents (RFC 9728)", async () => {
    const mcp = await api(s.url)("/.well-known/oauth-protected-resource/mcp");
    expect(mcp.json).toMatchObject({
      resource: `${s.url}/mcp`,
      authorization_servers: [s.url],
      scopes_supported: ["crew:read", "crew:write", "crew:admin"],
      bearer_methods_supported: ["header"],
    });
    const root = await api(s.url)("/.well-known/oauth-protected-resource");
    expect(root.json).toMatchObject({ resource: s.url, authorization_servers: [s.url], bearer_methods_supported: ["header"] });
  });

  it("never takes URLs from the Host header", async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(`${s.url}/.well-known/oauth-authorization-server`, { headers: { Host: "evil.example" } }, (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end();
    });
    expect(body).not.toContain("evil.example");
    expect(JSON.parse(body).issuer).toBe(s.url);
  });

  it("answers 405 with Allow for other methods", async () => {
    const res = await api(s.url)("/oauth/token");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("CORS for browser clients", () => {
  const origin = "http://localhost:6274"; // MCP Inspector
  const preflight = (path: string, method: string) =>
    fetch(`${s.url}${path}`, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "content-type, authorization, mcp-protocol-version",
      },
    });

  it.each([
    ["/.well-known/oauth-authorization-server", "GET"],
    ["/.well-known/oauth-protected-resource", "GET"],
    ["/.well-known/oauth-protected-resource/mcp", "GET"],
    ["/oauth/register", "POST"],
    ["/oauth/token", "POST"],
    ["/oauth/revoke", "POST"],
    ["/token", "POST"],
    ["/register", "POST"],
  ])("answers the preflight on %s", async (path, method) => {
    const res = await preflight(path, method);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")).toContain("MCP-Protocol-Version");
    expect(res.headers.get("access-control-allow-methods")).toBe(`${method}, OPTIONS`);
  });

  it("puts CORS headers on successes and errors, not on session pages", async () => {
    const meta = await fetch(`${s.url}/.well-known/oauth-authorization-server`, { headers: { Origin: origin } });
    expect(meta.headers.get("access-control-allow-origin")).toBe("*");
    const error = await fetch(`${s.url}/oauth/token`, {
      method: "POST",
      headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=password",
    });
    expect(error.status).toBe(401);
    expect(error.headers.get("access-control-allow-origin")).toBe("*");
    expect(error.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    const authorize = await fetch(`${s.url}/oauth/authorize`, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
    });
    expect(authorize.headers.get("access-control-allow-origin")).toBeNull();
    const apps = await fetch(`${s.url}/connected-apps`, { headers: { Origin: origin }, redirect: "manual" });
    expect(apps.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("registration as clients do it", () => {
  it("answers 201 with the full metadata and no null field, at /oauth/register and /register", async () => {
    for (const path of ["/oauth/register", "/register"]) {
      const res = await fetch(`${s.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
          client_name: "Claude",
          client_uri: null,
          token_endpoint_auth_method: "client_secret_post",
        }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const body = await res.json();
      expect(Object.values(body)).not.toContain(null);
      expect(body).toEqual({
        client_id: expect.stringMatching(/^crewcl_/),
        client_id_issued_at: Math.floor(s.clock.now() / 1000),
        client_secret: expect.stringMatching(/^crewcs_/),
        client_secret_expires_at: 0,
        redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
        token_endpoint_auth_method: "client_secret_post",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        client_name: "Claude",
      });
    }
  });

  it("accepts Cursor's and VS Code's redirect URIs", async () => {
    const client = await registerClient(s.url, {
      redirect_uris: [
        "cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback",
        "http://127.0.0.1:33418/",
        "https://vscode.dev/redirect",
      ],
    });
    expect(client.redirect_uris).toHaveLength(3);
    expect(client).not.toHaveProperty("client_secret");
  });

  it("refuses bad metadata in the RFC 7591 format", async () => {
    const res = await api(s.url)("/oauth/register", { body: { redirect_uris: ["http://evil.example/cb"] } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: "invalid_redirect_uri",
      error_description: "redirect_uris[0] must use https, or http only on a loopback host (localhost, 127.0.0.1, [::1])",
    });
    const broken = await api(s.url)("/oauth/register", { body: "{not json" });
    expect(broken.json.error).toBe("invalid_client_metadata");
  });
});

describe("authorization as clients do it", () => {
  it("matches a loopback redirect registered without a port when used with one", async () => {
    const c = await connect(s.url, email, {
      register: { redirect_uris: ["http://127.0.0.1/callback"] },
      redirectUri: "http://127.0.0.1:53123/callback",
    });
    expect(c.callback.host).toBe("127.0.0.1:53123");
    expect(c.callback.searchParams.get("state")).toBe(c.state);
    expect(c.callback.searchParams.get("iss")).toBe(s.url);
    const res = await exchangeCode(s.url, c);
    expect(res.status).toBe(200);
    expect(res.json.token_type).toBe("Bearer");
  });

  it.each([
    ["absent", undefined],
    ["the base", "BASE"],
    ["the base with a slash", "BASE/"],
    ["/mcp", "BASE/mcp"],
  ])("accepts resource %s at authorize and token", async (_, resource) => {
    const value = resource?.replace("BASE", s.url);
    const c = await connect(s.url, email, { authorize: { resource: value } });
    const res = await exchangeCode(s.url, c, { resource: value });
    expect(res.status).toBe(200);
    expect((await api(s.url, res.json.access_token)("/api/mcp/agents")).status).toBe(200);
  });

  it("takes scope with offline_access and stray whitespace", async () => {
    const c = await connect(s.url, email, { authorize: { scope: "  offline_access   crew:read\t" } });
    const res = await exchangeCode(s.url, c);
    expect(res.json.scope).toBe("crew:read");
    expect(res.json.refresh_token).toMatch(/^crewrt_/);
  });

  it("answers at the /authorize and /token aliases", async () => {
    const c = await connect(s.url, email, {});
    const alias = await fetch(`${s.url}/authorize?client_id=${c.clientId}`, { redirect: "manual" });
    expect(alias.status).toBe(302); // redirect_uri is implied (one registered), then response_type is missing
    expect(alias.headers.get("location")).toContain("error=invalid_request");
    const res = await postForm(`${s.url}/token`, {
      grant_type: "authorization_code",
      code: c.code,
      redirect_uri: c.redirectUri,
      code_verifier: c.verifier,
      client_id: c.clientId,
    });
    expect(res.status).toBe(200);
  });
});

describe("confidential clients", () => {
  it("authenticate by post when registered for Basic, and by Basic when registered for post", async () => {
    const basicClient = await connect(s.url, email, { register: { token_endpoint_auth_method: "client_secret_basic" } });
    const byPost = await exchangeCode(s.url, basicClient, { client_secret: basicClient.clientSecret });
    expect(byPost.status).toBe(200);

    const postClient = await connect(s.url, email, { register: { token_endpoint_auth_method: "client_secret_post" } });
    const byBasic = await exchangeCode(
      s.url,
      postClient,
      { client_id: undefined },
      { Authorization: basicAuth(postClient.clientId, postClient.clientSecret!) },
    );
    expect(byBasic.status).toBe(200);

    const refreshed = await postForm(
      `${s.url}/oauth/token`,
      { grant_type: "refresh_token", refresh_token: byBasic.json.refresh_token },
      { Authorization: basicAuth(postClient.clientId, postClient.clientSecret!) },
    );
    expect(refreshed.status).toBe(200);
  });

  it("refuses a missing or wrong secret with 401 invalid_client", async () => {
    const c = await connect(s.url, email, { register: { token_endpoint_auth_method: "client_secret_basic" } });
    const none = await exchangeCode(s.url, c);
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: "invalid_client", error_description: "Client authentication failed." });
    const wrong = await exchangeCode(s.url, c, { client_id: undefined }, { Authorization: basicAuth(c.clientId, "crewcs_wrong") });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="crew"');
    const unknown = await exchangeCode(s.url, c, { client_id: "crewcl_gone" });
    expect(unknown.json.error).toBe("invalid_client");
  });
});

describe("the MCP endpoint's challenge", () => {
  it("answers initialize without a token with 401 pointing to the /mcp resource metadata", async () => {
    const res = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
      }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${s.url}/.well-known/oauth-protected-resource/mcp"`);
    // The document it names leads to this authorization server.
    const doc = await (await fetch(`${s.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(doc.authorization_servers).toEqual([s.url]);
  });
});
