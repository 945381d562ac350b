/**
 * Client ID Metadata Documents end to end (src/docs/notes/oauth.md): a real TLS server on loopback serves the
 * documents with a certificate made here, trusted by the spawned Crew process through
 * NODE_EXTRA_CA_CERTS; ALLOW_PRIVATE_TARGETS lets Crew reach 127.0.0.1. Discovery → authorize with
 * the document URL as client_id → consent naming the document's host → code → token → /mcp. Then
 * what must be refused: a document whose client_id differs, one over 5 KB, a redirect URI it does
 * not list, and the same loopback address when the flag is off.
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createUser } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { authorizeInBrowser, authorizeUrl, HttpBrowser, pkce, postForm } from "../helpers/oauth.ts";
import { prepareDatabase, tempDir, testPasswordHash } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

const REDIRECT = "http://127.0.0.1/callback";
const EMAIL = "cimd@example.com";

const temp = tempDir("crew-cimd-");
const dbUrl = `file:${join(temp.dir, "crew.db")}`;
let db: Db;
let tls: Server;
let docs: string;
/** Requests the document server received, by path. */
const hits = new Map<string, number>();
let crew: SpawnedServer;
let strict: SpawnedServer;

/** The documents served, by path; each names its own URL unless it is the mismatching one. */
function documents(origin: string): Record<string, { body: unknown; headers?: Record<string, string> }> {
  const doc = (path: string, extra: Record<string, unknown> = {}) => ({
    client_id: `${origin}${path}`,
    client_name: "Doc Client",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    ...extra,
  });
  return {
    "/client.json": { body: doc("/client.json"), headers: { "Cache-Control": "max-age=300" } },
    "/mismatch.json": { body: doc("/mismatch.json", { client_id: `${origin}/someone-else.json` }) },
    "/big.json": { body: doc("/big.json", { software_id: "x".repeat(100), padding: "x".repeat(6 * 1024) }) },
  };
}

beforeAll(async () => {
  const config = loadConfig({ DATABASE_URL: dbUrl });
  const prepared = await prepareDatabase(dbUrl, config, Date.now());
  db = prepared.db;
  await createUser(
    db,
    { orgId: prepared.org.id, email: EMAIL, name: "CIMD", passwordHash: await testPasswordHash(), plan: "operator" },
    Date.now(),
  );

  const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });
  const caFile = join(temp.dir, "ca.pem");
  writeFileSync(caFile, pems.cert);
  let served: ReturnType<typeof documents> = {};
  tls = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const found = served[path];
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json", ...found.headers }).end(JSON.stringify(found.body));
  });
  await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
  docs = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  served = documents(docs);

  const env = { DATABASE_URL: dbUrl, CREW_SECRET: "cimd-secret-cimd-secret-cimd-secret-00", NODE_EXTRA_CA_CERTS: caFile };
  [crew, strict] = await Promise.all([
    spawnServer({ ...env, ALLOW_PRIVATE_TARGETS: "true" }),
    spawnServer({ ...env, ALLOW_PRIVATE_TARGETS: "false", WEBHOOK_ALLOW_PRIVATE: "false" }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([crew?.stop(), strict?.stop()]);
  tls?.closeAllConnections();
  await new Promise<void>((resolve) => (tls ? tls.close(() => resolve()) : resolve()));
  db?.close();
  temp.cleanup();
});

const authorizeFor = (base: string, clientId: string, redirectUri = REDIRECT, challenge = pkce().challenge) =>
  authorizeUrl(base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "crew:read crew:write",
    state: "s1",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });

describe("client ID metadata documents", () => {
  it("discovery → authorize with the document URL → consent showing its host → code → token → /mcp", async () => {
    const metadata = await (await fetch(`${crew.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.registration_endpoint).toBe(`${crew.url}/oauth/register`);

    const clientId = `${docs}/client.json`;
    const { verifier, challenge } = pkce();
    const browser = new HttpBrowser(crew.url);
    const step = await authorizeInBrowser(browser, authorizeFor(crew.url, clientId, REDIRECT, challenge), { email: EMAIL });
    expect(step.consent).toContain("Connect Doc Client to Crew?");
    expect(step.consent).toMatch(new RegExp(`Described by</dt><dd><strong class="mono">127\\.0\\.0\\.1:${new URL(docs).port}</strong>`));
    const callback = new URL(step.location ?? "");
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get("state")).toBe("s1");

    const tokens = await postForm(`${crew.url}/oauth/token`, {
      grant_type: "authorization_code",
      code: callback.searchParams.get("code") ?? "",
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.json).toMatchObject({ token_type: "Bearer", scope: "crew:read crew:write" });

    const client = await connectHttp(crew.url, tokens.json.access_token);
    try {
      const result = (await client.callTool({ name: "crew_agent_status", arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ total: 17 });
    } finally {
      await client.close();
    }

    // Cache-Control max-age=300: a second authorization within it does not fetch the document again.
    const before = hits.get("/client.json");
    const again = await browser.walk(authorizeFor(crew.url, clientId));
    expect(again.html).toContain("Connect Doc Client to Crew?");
    expect(hits.get("/client.json")).toBe(before);
  });

  it("refuses a document whose client_id is not its URL", async () => {
    const step = await new HttpBrowser(crew.url).walk(authorizeFor(crew.url, `${docs}/mismatch.json`));
    expect(step.status).toBe(400);
    expect(step.location).toBeNull();
    expect(step.html).toContain("its client_id is not the URL it was fetched from");
  });

  it("refuses a document over 5 KB", async () => {
    const step = await new HttpBrowser(crew.url).walk(authorizeFor(crew.url, `${docs}/big.json`));
    expect(step.status).toBe(400);
    expect(step.html).toContain("could not load the application&#39;s client metadata document from 127.0.0.1:");
  });

  it("refuses a redirect URI the document does not list, with an error page and no redirect", async () => {
    const step = await new HttpBrowser(crew.url).walk(authorizeFor(crew.url, `${docs}/client.json`, "http://127.0.0.1/elsewhere"));
    expect(step.status).toBe(400);
    expect(step.location).toBeNull();
    expect(step.html).toContain("is not one it registered");
  });

  it("refuses a document on a private address without ALLOW_PRIVATE_TARGETS, without connecting to it", async () => {
    const before = hits.get("/client.json") ?? 0;
    const step = await new HttpBrowser(strict.url).walk(authorizeFor(strict.url, `${docs}/client.json`));
    expect(step.status).toBe(400);
    // The same words as an unreachable document (src/docs/notes/outbound-requests.md: no port scanning through error texts).
    expect(step.html).toContain("could not load the application&#39;s client metadata document from 127.0.0.1:");
    expect(hits.get("/client.json") ?? 0).toBe(before);
  });
});
