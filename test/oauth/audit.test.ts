/**
 * Audit of the authorization server against what real MCP clients send (src/docs/notes/oauth.md#what-real-clients-do "Real MCP
 * clients and OAuth"): discovery as the SDK and VS Code walk it, registration bodies as Claude,
 * Cursor, VS Code, MCP Inspector and mcp-remote send them, authorization and token requests with
 * the quirks those clients have, and the SDK's own auth() through `/mcp/`.
 */

import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { discoverOAuthMetadata, discoverOAuthServerInfo, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  OAuthClientInformationFullSchema,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeInBrowser, basicAuth, connect as connectAs, exchangeCode, HttpBrowser, postForm } from "../helpers/oauth.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let email: string;
/** One signed-in browser for the file: sign-in hashing is slow by design. */
let browser: HttpBrowser;
beforeAll(async () => {
  s = await startServer();
  email = (await s.createUser("operator")).email;
  browser = new HttpBrowser(s.url);
  await browser.signIn(email);
});
afterAll(() => s.close());

const connect = (options: Parameters<typeof connectAs>[2] = {}) => connectAs(s.url, email, { browser, ...options });
const refresh = (clientId: string, token: string, extra: Record<string, string> = {}) =>
  postForm(`${s.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: token, client_id: clientId, ...extra });

/** The resource_metadata URL of a 401 challenge, as the SDK extracts it. */
async function challengeUrl(path: string, init: RequestInit = {}): Promise<string> {
  const res = await fetch(`${s.url}${path}`, init);
  expect(res.status).toBe(401);
  const match = /resource_metadata="([^"]+)"/.exec(res.headers.get("www-authenticate") ?? "");
  return match?.[1] ?? "";
}

const mcpInit = {
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
};

describe("discovery as clients walk it", () => {
  it("points each 401 at a document whose resource is exactly the URL the client used (VS Code compares them)", async () => {
    for (const [path, init, resource] of [
      ["/mcp", mcpInit, `${s.url}/mcp`],
      ["/mcp/", mcpInit, `${s.url}/mcp/`],
      ["/api/mcp/agents", {}, s.url],
    ] as const) {
      const url = await challengeUrl(path, init);
      const doc = await fetch(url);
      expect(doc.status).toBe(200);
      expect(doc.headers.get("access-control-allow-origin")).toBe("*");
      const body = await doc.json();
      expect(body.resource).toBe(resource);
      expect(body.authorization_servers).toEqual([s.url]);
    }
    // VS Code's check without a challenge: path-appended document first, then the root one.
    for (const target of [`${s.url}/mcp`, `${s.url}/mcp/`]) {
      const path = new URL(target).pathname;
      const body = await (await fetch(`${s.url}/.well-known/oauth-protected-resource${path}`)).json();
      expect(new URL(body.resource).toString()).toBe(new URL(target).toString());
    }
  });

  it("answers the guessed variants Crew does not serve with a JSON 404, so fallbacks move on", async () => {
    for (const path of [
      "/.well-known/oauth-authorization-server/mcp",
      "/.well-known/openid-configuration",
      "/.well-known/openid-configuration/mcp",
      "/mcp/.well-known/openid-configuration",
      "/mcp/.well-known/oauth-protected-resource",
    ]) {
      const res = await api(s.url, undefined, { contract: false })(path);
      expect(res.status, path).toBe(404);
      expect(res.json.error, path).toBe("not_found");
    }
  });

  it("ends the SDK's discovery at Crew's metadata from every starting point", async () => {
    for (const serverUrl of [`${s.url}/mcp`, `${s.url}/mcp/`]) {
      for (const resourceMetadataUrl of [undefined, new URL(await challengeUrl(new URL(serverUrl).pathname, mcpInit))]) {
        const info = await discoverOAuthServerInfo(serverUrl, { resourceMetadataUrl });
        expect(info.authorizationServerUrl).toBe(s.url);
        expect(info.authorizationServerMetadata?.issuer).toBe(s.url);
        expect(info.authorizationServerMetadata?.registration_endpoint).toBe(`${s.url}/oauth/register`);
        expect(info.resourceMetadata?.resource.replace(/\/$/, "")).toBe(`${s.url}/mcp`);
      }
    }
    // Older SDKs took the MCP URL itself as the issuer: path-inserted first, then the root document.
    expect((await discoverOAuthMetadata(`${s.url}/mcp`))?.token_endpoint).toBe(`${s.url}/oauth/token`);
  });
});

/** Registration bodies as the clients send them (from their sources), plus RFC 7591 extras. */
const CLIENT_BODIES: Record<string, Record<string, unknown>> = {
  "claude.ai": {
    client_name: "Claude",
    redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_post",
    scope: "crew:read crew:write",
  },
  "Claude Code": {
    client_name: "Claude Code (crew)",
    redirect_uris: ["http://localhost:51234/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  },
  Cursor: {
    client_name: "Cursor",
    redirect_uris: ["cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  },
  "VS Code": {
    client_name: "Visual Studio Code",
    client_uri: "https://code.visualstudio.com",
    grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
    response_types: ["code"],
    redirect_uris: ["https://insiders.vscode.dev/redirect", "https://vscode.dev/redirect", "http://127.0.0.1/", "http://127.0.0.1:33418/"],
    token_endpoint_auth_method: "none",
    application_type: "native",
  },
  "MCP Inspector": {
    redirect_uris: ["http://localhost:6274/oauth/callback", "http://localhost:6274/oauth/callback/debug"],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    client_name: "MCP Inspector",
    client_uri: "https://github.com/modelcontextprotocol/inspector",
    scope: "crew:read crew:write crew:admin",
  },
  "mcp-remote": {
    redirect_uris: ["http://localhost:3334/oauth/callback"],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    client_name: "MCP CLI Proxy",
    client_uri: "https://github.com/modelcontextprotocol/mcp-cli",
    software_id: "2e6dc280-f3c3-4e01-99a7-8181dbd1d23d",
    software_version: "0.1.29",
  },
  "every RFC 7591 field": {
    redirect_uris: ["https://app.example/cb"],
    client_name: "Everything",
    client_uri: "https://app.example",
    logo_uri: "https://app.example/logo.png",
    tos_uri: "https://app.example/tos",
    policy_uri: "https://app.example/privacy",
    jwks_uri: "https://app.example/jwks.json",
    contacts: ["ops@app.example"],
    software_id: "app",
    software_version: "2.1.0",
    software_statement: "eyJhbGciOiJub25lIn0.e30.",
    scope: "openid profile crew:read offline_access",
    tos_uri_extra: { nested: true },
    unknown_field: null,
  },
};

describe("registration as each client sends it", () => {
  it.each(Object.entries(CLIENT_BODIES))("registers %s: 201, no null field, parseable by the SDK", async (_, body) => {
    const res = await fetch(`${s.url}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    const json = await res.json();
    expect(Object.values(json)).not.toContain(null);
    expect(OAuthClientInformationFullSchema.safeParse(json).success).toBe(true);
    expect(json.redirect_uris).toEqual(body.redirect_uris);
    expect(json.grant_types).toEqual(["authorization_code", "refresh_token"]);
    expect(json.response_types).toEqual(["code"]);
    expect("client_secret" in json).toBe(body.token_endpoint_auth_method === "client_secret_post");
    for (const name of ["client_uri", "software_id", "software_version", "contacts", "tos_uri", "policy_uri", "logo_uri"]) {
      if (name in body) expect(json[name]).toEqual(body[name]);
    }
    for (const name of ["jwks_uri", "software_statement", "application_type", "unknown_field", "tos_uri_extra"])
      expect(json).not.toHaveProperty(name);
  });

  it("keeps the known scopes of a registration and drops the rest", async () => {
    const res = await api(s.url)("/oauth/register", { body: CLIENT_BODIES["every RFC 7591 field"] });
    expect(res.json.scope).toBe("crew:read");
  });
});

describe("authorization requests as clients send them", () => {
  const STATE = `a b+c/d?e=f&g#h%20'"<>é😀~`;

  it("returns a state full of special characters exactly, through sign-in and consent", async () => {
    const fresh = new HttpBrowser(s.url);
    const c = await connectAs(s.url, email, { browser: fresh, authorize: { state: STATE } });
    expect(c.callback.searchParams.get("state")).toBe(STATE);
    expect(c.callback.searchParams.get("iss")).toBe(s.url);
    expect((await exchangeCode(s.url, c)).status).toBe(200);
  });

  it("ignores prompt=consent and unknown parameters, and takes resource {base}/mcp/", async () => {
    const c = await connect({
      authorize: { prompt: "consent", audience: "x", nonce: "n", ui_locales: "fr", resource: `${s.url}/mcp/`, state: STATE },
    });
    expect(c.code).toMatch(/^crewac_/);
    expect(c.callback.searchParams.get("state")).toBe(STATE);
    const tokens = await exchangeCode(s.url, c, { resource: `${s.url}/mcp/` });
    expect(tokens.status).toBe(200);
    const call = await fetch(`${s.url}/mcp/`, {
      ...mcpInit,
      headers: { ...mcpInit.headers, Authorization: `Bearer ${tokens.json.access_token}` },
    });
    expect(call.status).toBe(200);
  });

  it.each([
    ["no code_challenge_method (plain by default)", { code_challenge_method: undefined }],
    ["plain", { code_challenge_method: "plain" }],
  ])("refuses PKCE with %s, carrying state and iss (to a client approved before)", async (_, authorize) => {
    // Errors go back only to a redirect URI a person approved (RFC 9700 §4.11.2; test/oauth/redirects.test.ts).
    const { clientId } = await connect();
    const c = await connect({ clientId, authorize: { ...authorize, state: STATE } });
    expect(c.callback.searchParams.get("error")).toBe("invalid_request");
    expect(c.callback.searchParams.get("state")).toBe(STATE);
    expect(c.callback.searchParams.get("iss")).toBe(s.url);
  });

  it("takes VS Code's portless loopback registration at any port, and its vscode.dev redirect", async () => {
    const register = CLIENT_BODIES["VS Code"];
    const loopback = await connect({ register, redirectUri: "http://127.0.0.1:54321/" });
    expect(loopback.callback.origin).toBe("http://127.0.0.1:54321");
    expect((await exchangeCode(s.url, loopback)).status).toBe(200);
    const web = await connect({ register, redirectUri: "https://vscode.dev/redirect" });
    expect(web.callback.origin + web.callback.pathname).toBe("https://vscode.dev/redirect");
    expect((await exchangeCode(s.url, web)).status).toBe(200);
  });
});

describe("token requests as clients send them", () => {
  it("lets a public client send its id by Basic with an empty password, or a stray secret by post", async () => {
    const basic = await connect();
    const byBasic = await exchangeCode(s.url, basic, { client_id: undefined }, { Authorization: basicAuth(basic.clientId, "") });
    expect(byBasic.status).toBe(200);
    const post = await connect();
    const byPost = await exchangeCode(s.url, post, { client_secret: "whatever-claude-sends" });
    expect(byPost.status).toBe(200);
    expect((await refresh(post.clientId, byPost.json.refresh_token, { client_secret: "x" })).status).toBe(200);
  });

  it("answers an unknown client 401 invalid_client, with a Basic challenge only when Basic was used", async () => {
    const c = await connect();
    const viaBasic = await exchangeCode(s.url, c, { client_id: undefined }, { Authorization: basicAuth("crewcl_gone", "") });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.json.error).toBe("invalid_client");
    expect(viaBasic.headers.get("www-authenticate")).toBe('Basic realm="crew"');
    const viaPost = await exchangeCode(s.url, c, { client_id: "crewcl_gone" });
    expect(viaPost.status).toBe(401);
    expect(viaPost.headers.get("www-authenticate")).toBeNull();
  });

  it("refreshes without resource, with any name of Crew, and narrower, all no-store", async () => {
    const c = await connect();
    let tokens = (await exchangeCode(s.url, c)).json;
    const variants: Record<string, string>[] = [
      {},
      { resource: `${s.url}/mcp` },
      { resource: s.url },
      { resource: `${s.url}/mcp/` },
      { scope: "crew:read" },
    ];
    for (const extra of variants) {
      const res = await refresh(c.clientId, tokens.refresh_token, extra);
      expect(res.status, JSON.stringify(extra)).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("pragma")).toBe("no-cache");
      tokens = res.json;
    }
    expect(tokens.scope).toBe("crew:read");
    const wrong = await refresh(c.clientId, tokens.refresh_token, { resource: "https://other.example/mcp" });
    expect(wrong.json.error).toBe("invalid_target");
    expect(wrong.headers.get("cache-control")).toBe("no-store");
    expect(wrong.headers.get("pragma")).toBe("no-cache");
  });

  it("lets a client keep whichever result of two concurrent refreshes it stored", async () => {
    const c = await connect();
    const r1 = (await exchangeCode(s.url, c)).json.refresh_token;
    const both = await Promise.all([refresh(c.clientId, r1), refresh(c.clientId, r1)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    // In order, so the test is deterministic: the first answer is the one a racing writer left in
    // the client's store. Either child works; the first one used retires its parent and sibling.
    const a = await refresh(c.clientId, r1);
    const b = await refresh(c.clientId, r1);
    const kept = await refresh(c.clientId, a.json.refresh_token);
    expect(kept.status).toBe(200);
    expect((await api(s.url, kept.json.access_token)("/api/mcp/agents")).status).toBe(200);
    expect((await refresh(c.clientId, b.json.refresh_token)).json.error).toBe("invalid_grant");
    expect((await api(s.url, kept.json.access_token)("/api/mcp/agents")).status).toBe(401);
  });

  it("answers token errors with CORS for browser clients", async () => {
    const res = await fetch(`${s.url}/oauth/token`, {
      method: "POST",
      headers: { Origin: "http://localhost:6274", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "crewrt_nope", client_id: (await connect()).clientId }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("invalid_grant");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

/** The SDK's OAuth client provider, its "browser" being the HTTP form walker. */
class Provider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  code = "";
  authorizeUrls: URL[] = [];
  get redirectUrl() {
    return "http://localhost:51999/callback";
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "SDK via /mcp/", redirect_uris: [this.redirectUrl], token_endpoint_auth_method: "none" };
  }
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.client = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
  async redirectToAuthorization(url: URL) {
    this.authorizeUrls.push(url);
    const back = await authorizeInBrowser(browser, url.href, { email });
    this.code = new URL(back.location ?? "about:blank").searchParams.get("code") ?? "";
  }
}

describe("the SDK client configured with {base}/mcp/", () => {
  it("signs in through the /mcp/ challenge and calls a tool", async () => {
    const provider = new Provider();
    const url = new URL(`${s.url}/mcp/`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: "slash", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizeUrls[0]?.searchParams.get("resource")).toBe(`${s.url}/mcp/`);
    await first.finishAuth(provider.code);
    const client = new Client({ name: "slash", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const result = await client.callTool({ name: "crew_agent_status", arguments: {} });
    expect(result.isError).toBeFalsy();
    await client.close();
  });
});
