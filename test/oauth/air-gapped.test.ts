/**
 * Issue 18 item 18: air-gapped deployments. With OAUTH_CLIENT_METADATA_DOCUMENTS=off the
 * authorization server stops advertising client metadata documents (so Claude Code and Codex
 * register dynamically instead of waiting on a fetch that cannot succeed), and a client that
 * still sends a document URL gets a page that says what to do; dynamic registration still works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const DOCUMENT_CLIENT = "https://claude.ai/oauth/claude-code-client-metadata";
const authorizeQuery = (clientId: string, redirectUri: string) =>
  new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    state: "s1",
  });

let off: TestServer;
let on: TestServer;
beforeAll(async () => {
  off = await startServer({ env: { OAUTH_CLIENT_METADATA_DOCUMENTS: "off" } });
  // Documents on, but the outbound policy refuses every private address, as on a server without a route out.
  on = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
});
afterAll(async () => {
  await off.close();
  await on.close();
});

const metadata = async (s: TestServer) => (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json();

describe("OAUTH_CLIENT_METADATA_DOCUMENTS", () => {
  it("is advertised by default and not when off", async () => {
    expect((await metadata(on)).client_id_metadata_document_supported).toBe(true);
    const advertised = await metadata(off);
    expect(advertised).not.toHaveProperty("client_id_metadata_document_supported");
    expect(advertised.registration_endpoint).toBe(`${off.url}/oauth/register`);
  });

  it("off: a document client_id gets an error page saying what to do, and nothing is fetched", async () => {
    const res = await fetch(`${off.url}/oauth/authorize?${authorizeQuery(DOCUMENT_CLIENT, "http://127.0.0.1:5555/callback")}`, {
      headers: { Accept: "text/html" },
      redirect: "manual",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    const page = await res.text();
    expect(page).toContain("OAUTH_CLIENT_METADATA_DOCUMENTS=off");
    expect(page).toContain("add it again");
    expect(page).toContain("API key");
  });

  it("off: dynamic registration and authorization keep working", async () => {
    const reg = await fetch(`${off.url}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1/callback"], client_name: "Air-gapped client" }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = await reg.json();
    const res = await fetch(`${off.url}/oauth/authorize?${authorizeQuery(client_id, "http://127.0.0.1:4444/callback")}`, {
      redirect: "manual",
    });
    // Not signed in: on to the sign-in page and back, not an error.
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/sign-in\?next=/);
  });

  it("on, document unreachable: the page names the setting an operator without outbound access can use", async () => {
    const res = await fetch(`${on.url}/oauth/authorize?${authorizeQuery("https://127.0.0.1:1/client.json", "http://127.0.0.1/cb")}`, {
      headers: { Accept: "text/html" },
      redirect: "manual",
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("OAUTH_CLIENT_METADATA_DOCUMENTS=off");
  });

  it("refuses a value that is not a yes or a no, naming the variable", async () => {
    const { loadConfig, ConfigError } = await import("../../src/config.ts");
    expect(() => loadConfig({ OAUTH_CLIENT_METADATA_DOCUMENTS: "maybe" })).toThrow(ConfigError);
    expect(() => loadConfig({ OAUTH_CLIENT_METADATA_DOCUMENTS: "maybe" })).toThrow(/OAUTH_CLIENT_METADATA_DOCUMENTS/);
    expect(loadConfig({}).clientMetadataDocuments).toBe(true);
    expect(loadConfig({ OAUTH_CLIENT_METADATA_DOCUMENTS: "0" }).clientMetadataDocuments).toBe(false);
  });
});
