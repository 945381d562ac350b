/**
 * The MCP SDK's own client auth connects from nothing but the URL: 401 → protected resource
 * metadata → AS metadata → registration → authorize (signed in and approved over HTTP by the test
 * provider) → token → tools/list → a tool call; then a plan downgrade hides write tools at once.
 */

import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUserPlan } from "../../src/store/auth/users.ts";
import { authorizeInBrowser, HttpBrowser } from "../helpers/oauth.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/** An in-memory provider whose "browser" is the HTTP form walker, signing in as `email`. */
class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  code: string | null = null;
  visited: URL[] = [];
  constructor(
    private readonly base: string,
    private readonly email: string,
  ) {}

  get redirectUrl() {
    return "http://127.0.0.1:7777/oauth/callback";
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "MCP SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.visited.push(url);
    const back = await authorizeInBrowser(new HttpBrowser(this.base), url.href, { email: this.email });
    const callback = new URL(back.location ?? "about:blank");
    if (callback.searchParams.get("iss") !== this.base) throw new Error(`no iss in ${callback.href}`);
    this.code = callback.searchParams.get("code");
  }
}

describe("the MCP SDK client connects with OAuth", () => {
  it("goes from the bare URL to a tool call, and loses write tools when the plan drops", async () => {
    const user = await s.createUser("operator");
    const provider = new TestProvider(s.url, user.email);
    const url = new URL(`${s.url}/mcp`);

    // First attempt: 401, discovery, registration, authorization; the transport then asks for finishAuth.
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: "sdk-oauth", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^crewcl_/);
    const asked = provider.visited[0]!;
    expect(asked.origin + asked.pathname).toBe(`${s.url}/oauth/authorize`);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("resource")).toBe(`${s.url}/mcp`);
    expect(provider.code).toMatch(/^crewac_/);
    await first.finishAuth(provider.code!);
    expect(provider.saved?.refresh_token).toMatch(/^crewrt_/);

    const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("crew_agent_status");
    expect(names).toContain("crew_add_action");
    const result = await client.callTool({ name: "crew_agent_status", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { total: number }).total).toBe(17);

    await setUserPlan(s.db, user.email, "pro");
    const after = (await client.listTools()).tools.map((t) => t.name);
    expect(after).toContain("crew_agent_status");
    expect(after).not.toContain("crew_add_action");

    // An hour on, the access token has expired: the SDK meets 401 invalid_token and refreshes by itself.
    const before = provider.saved!;
    s.clock.advance(61 * 60_000);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("crew_agent_status");
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    expect(provider.visited).toHaveLength(1);
    await client.close();
  });
});
