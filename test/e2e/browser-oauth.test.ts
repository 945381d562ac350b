/**
 * OAuth in a real browser (headless Debian Chromium via playwright-core): an MCP client's
 * authorization URL → sign-in → consent → Approve → the client's loopback page receives the code
 * (registered without a port, used with one), which then exchanges for working tokens. This is
 * also what proves the consent page's CSP lets the form lead back to the client.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { authorizeUrl, exchangeCode, pkce, registerClient } from "../helpers/oauth.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let browser: TestBrowser;
let clientApp: Server;
let clientPort: number;

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
  // The "MCP client": a loopback page that shows what it received, as CLI clients do.
  clientApp = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Client</title><h1>Authorization received</h1><p id="code">${url.searchParams.get("code") ?? ""}</p>`);
  });
  await new Promise<void>((resolve) => clientApp.listen(0, "127.0.0.1", () => resolve()));
  clientPort = (clientApp.address() as AddressInfo).port;
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => clientApp?.close(() => resolve()));
  await s?.close();
});

describe("OAuth consent in a browser", () => {
  it("walks sign-in → consent → redirect to the loopback client with the code", async () => {
    const user = await s.createUser("operator");
    const client = await registerClient(s.url, { client_name: "Browser Test Client", redirect_uris: ["http://127.0.0.1/callback"] });
    const redirectUri = `http://127.0.0.1:${clientPort}/callback`;
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(s.url, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: "crew:read crew:write offline_access",
      state: "browser-state",
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: `${s.url}/mcp`,
    });

    const page = await browser.newPage();
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByRole("heading", { name: "Connect Browser Test Client to Crew?" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/oauth/authorize");
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain(`127.0.0.1:${clientPort}`);
    expect(text).toContain("crew:read");
    expect(text).toContain("crew:write");
    await browser.screenshot(page, "oauth-consent");

    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL((u) => u.port === String(clientPort), { timeout: 10_000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe("/callback");
    expect(landed.searchParams.get("state")).toBe("browser-state");
    expect(landed.searchParams.get("iss")).toBe(s.url);
    const code = (await page.locator("#code").textContent()) ?? "";
    expect(code).toBe(landed.searchParams.get("code"));
    expect(code).toMatch(/^crewac_/);

    const tokens = await exchangeCode(s.url, {
      clientId: client.client_id,
      redirectUri,
      verifier,
      code,
      state: "browser-state",
      browser: undefined as never,
      callback: landed,
    });
    expect(tokens.status).toBe(200);
    expect((await api(s.url, tokens.json.access_token)("/api/mcp/agents")).status).toBe(200);

    // The connected app shows on its page.
    await page.goto(`${s.url}/connected-apps`);
    expect(await page.locator("main").textContent()).toContain("Browser Test Client");
    await page.close();
  });
});
