import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/docs/error-codes.ts";
import { operations } from "../../src/operations/index.ts";
import { ARTIFACTS_DIR, launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const get = async (path: string) => {
  const res = await fetch(s.url + path);
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
};

/** Every URL an HTML page refers to (href, src, url(…)). */
const referencesIn = (html: string) => [...html.matchAll(/(?:href|src)="([^"]+)"|url\(([^)]+)\)/g)].map((m) => m[1] ?? m[2] ?? "");

describe("/docs", () => {
  it("renders every documented operation and MCP tool, referring only to its own resources", async () => {
    const page = await get("/docs");
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    const doc = (await api(s.url)("/openapi.json")).json;
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) expect(page.text).toContain(`id="${op.operationId}"`);
    }
    for (const op of operations) if (op.mcp) expect(page.text).toContain(op.mcp.name);
    const external = referencesIn(page.text).filter((u) => /^[a-z]+:|^\/\//i.test(u));
    expect(external).toEqual([]);
    expect(page.text).not.toMatch(/<script/i);
    const css = await get("/docs/assets/docs.css");
    expect(css.status).toBe(200);
    expect(css.type).toMatch(/^text\/css/);
    expect(css.text).not.toMatch(/@import|url\(/);
  });

  it("/docs/errors has an entry for every error code, and each envelope's docs_url lands on one", async () => {
    const page = await get("/docs/errors");
    expect(page.status).toBe(200);
    for (const { code } of ERROR_CODES) expect(page.text, code).toContain(`id="${code}"`);
    const codes = [
      "invalid_request",
      "unauthorized",
      "invalid_token",
      "insufficient_scope",
      "plan_upgrade_required",
      "forbidden",
      "not_found",
      "method_not_allowed",
      "payload_too_large",
      "unsupported_media_type",
      "rate_limited",
      "calendar_not_connected",
      "calendar_credentials_rejected",
      "calendar_unreachable",
      "calendar_not_found",
      "calendar_unavailable",
      "run_already_completed",
      "internal_error",
    ];
    expect(ERROR_CODES.map((e) => e.code).sort()).toEqual(codes.sort());
    const refused = await api(s.url, "crew_wrong")("/api/mcp/agents");
    expect(refused.json.docs_url).toBe(`${s.url}/docs/errors#invalid_token`);
    const anchor = new URL(refused.json.docs_url);
    expect((await get(anchor.pathname)).text).toContain(`id="${anchor.hash.slice(1)}"`);
  });
});

describe("/docs in headless Chromium", () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser.close());

  it("loads with no failed request and nothing fetched from another origin", async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    const foreign: string[] = [];
    const origin = new URL(s.url).origin;
    page.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.url()} ${r.status()}`);
    });
    page.on("request", (r) => {
      if (new URL(r.url()).origin !== origin) foreign.push(r.url());
    });
    for (const path of ["/docs", "/docs/errors#rate_limited"]) {
      const res = await page.goto(s.url + path, { waitUntil: "networkidle" });
      expect(res?.status()).toBe(200);
    }
    await browser.screenshot(page, "docs-errors");
    // The reference is long: its first screen (overview and navigation) is the useful picture.
    await page.goto(`${s.url}/docs#overview`, { waitUntil: "networkidle" });
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS_DIR, "docs-reference.png") });
    await page.goto(`${s.url}/docs#addActions`);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "docs-reference-operation.png") });
    expect(failed).toEqual([]);
    expect(foreign).toEqual([]);
    // The stylesheet applied: the side navigation is laid out beside the content.
    await page.goto(`${s.url}/docs`);
    const navWidth = await page.locator("nav.side").evaluate((el) => el.getBoundingClientRect().width);
    expect(navWidth).toBeGreaterThan(200);
    expect(await page.locator("h1").textContent()).toBe("Crew API");
  });
});

describe("discovery documents", () => {
  it("/.well-known/mcp.json describes the endpoint, transport, auth and every tool of the registry", async () => {
    const card = (await api(s.url)("/.well-known/mcp.json")).json;
    expect(card).toMatchObject({
      name: "crew",
      version: "1.0.0",
      endpoint: `${s.url}/mcp`,
      transport: "streamable-http",
      auth: {
        protectedResourceMetadata: `${s.url}/.well-known/oauth-protected-resource/mcp`,
        authorizationServerMetadata: `${s.url}/.well-known/oauth-authorization-server`,
      },
    });
    expect(card.auth.bearerApiKeys.scopes).toContain("admin");
    const tools = operations.filter((op) => op.mcp);
    expect(card.tools.map((t: { name: string }) => t.name)).toEqual(tools.map((op) => op.mcp?.name));
    for (const tool of card.tools) {
      const op = tools.find((o) => o.mcp?.name === tool.name);
      expect(tool).toEqual({
        name: op?.mcp?.name,
        title: op?.mcp?.title,
        description: op?.description,
        scope: op?.mcp?.access.oauthScope,
        keyScopes: op?.mcp?.access.keyScopes,
        annotations: op?.mcp?.annotations,
      });
    }
  });

  it("/llms.txt names every endpoint and tool; /llms-full.txt adds their schemas", async () => {
    const short = await get("/llms.txt");
    const full = await get("/llms-full.txt");
    expect(short.type).toMatch(/^text\/plain/);
    expect(short.text.startsWith("# Crew\n\n> ")).toBe(true);
    expect(short.text).toContain(`${s.url}/llms-full.txt`);
    const doc = (await api(s.url)("/openapi.json")).json;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item)) {
        expect(short.text).toContain(`\`${method.toUpperCase()} ${path}\``);
        expect(full.text).toContain(`### ${method.toUpperCase()} ${path}`);
      }
    }
    for (const op of operations) {
      if (!op.mcp) continue;
      expect(short.text).toContain(`\`${op.mcp.name}\``);
      expect(full.text).toContain(`### ${op.mcp.name}`);
    }
    expect(full.text).toContain('"additionalProperties":false');
    expect(full.text.length).toBeGreaterThan(short.text.length * 3);
  });
});
