/**
 * MCP Apps in real headless Chromium: a host page with the package's AppBridge frames Crew's app
 * (sandboxed iframe, opaque origin) and forwards its tool calls to a real MCP client connected to
 * Crew over loopback HTTP. Clicks in the app change the queue (checked over REST); text stays text;
 * 375 px wide without horizontal scroll; light and dark host themes. Screenshots:
 * test/artifacts/mcp-app-*.png (the docs' copies: src/docs/notes/mcp-apps-*.png).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppsHost, mountApp, startAppsHost } from "../helpers/apps-host.ts";
import { ARTIFACTS_DIR, launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { seedSuggestion } from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const DARK = {
  theme: "dark",
  styles: { variables: { "--color-background-primary": "#1e1e1e", "--color-text-primary": "#ececec" } },
};

let s: TestServer;
let host: AppsHost;
let browser: TestBrowser;
let page: Page;
let admin: Client;
let reader: Client;
/** The MCP client behind the host's bridge: the admin's, or the read-only key's. */
let behindHost: () => Client;
let rest: ReturnType<typeof api>;
const ids: Record<string, string> = {};

const callTool = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const readApp = async (uri: string) => String(((await admin.readResource({ uri })).contents[0] as { text: string }).text);
const statusOf = async (id: string) => (await rest(`/api/mcp/actions/${id}`)).json.status;

/** The app's frame alone, as a host shows it (test/artifacts/, git-ignored). */
async function shoot(name: string): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.locator("#frame").screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`) });
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function noHorizontalScroll(frame: Frame): Promise<void> {
  const sizes = await frame.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(sizes.client).toBeLessThanOrEqual(375);
  expect(sizes.scroll).toBeLessThanOrEqual(sizes.client);
}

beforeAll(async () => {
  s = await startServer();
  const { key } = await s.userWithKey("operator", ["admin"]);
  const { key: readKey } = await s.userWithKey("operator", ["read"]);
  rest = api(s.url, key);
  for (const [title, priority] of [
    ["<b>x</b>", "critical"],
    ["Call the bank back", "high"],
  ] as const) {
    ids[title] = (await rest("/api/mcp/actions", { body: { title, priority } })).json.actionId;
  }
  // An approval (agents propose them; REST adds tasks and follow-ups), so Approve shows.
  ids["Approve the Q3 budget"] = (
    await rest("/api/mcp/actions", { body: { title: "Approve the Q3 budget", priority: "high" } })
  ).json.actionId;
  await s.db.execute({ sql: "UPDATE actions SET type = 'approval' WHERE id = ?", args: [ids["Approve the Q3 budget"] as string] });
  await seedSuggestion(s, "growth", "Launch the referral programme", "high", s.clock.now());
  admin = await connectHttp(s.url, key);
  reader = await connectHttp(s.url, readKey);
  behindHost = () => admin;
  host = await startAppsHost();
  browser = await launchBrowser({ viewport: { width: 375, height: 900 } });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  for (const c of [admin, reader]) await c?.close().catch(() => {});
  await s?.close();
});

const mount = async (uri: string, tool: string, hostContext: Record<string, unknown> = { theme: "light" }) =>
  mountApp(page, host, (params) => behindHost().callTool(params), {
    html: await readApp(uri),
    toolResult: await callTool(admin, tool),
    hostContext,
  });

// A browser and three processes on a loaded machine: more time than the default per test.
describe("MCP Apps in Chromium through the ext-apps host bridge", { timeout: 90_000 }, () => {
  it("briefing app: the text renders, a title stays text, Done finishes the action (seen over REST)", async () => {
    const briefing = (await callTool(admin, "crew_briefing")).structuredContent as { briefing: string };
    const frame = await mount("ui://crew/briefing", "crew_briefing");
    await frame.locator("#suggestions .title", { hasText: "Launch the referral programme" }).waitFor();
    expect(await frame.locator("#briefing").textContent()).toBe(briefing.briefing);
    const row = frame.locator(`[data-action-id="${ids["<b>x</b>"]}"]`);
    expect(await row.locator(".title").textContent()).toBe("<b>x</b>");
    expect(await frame.locator("main b").count()).toBe(0);
    await noHorizontalScroll(frame);
    await shoot("mcp-app-briefing-light");

    await frame.getByRole("button", { name: "Done: <b>x</b>" }).click();
    await row.waitFor({ state: "detached" });
    expect(await statusOf(ids["<b>x</b>"] as string)).toBe("done");
    expect(await frame.locator("#status").textContent()).toBe("“<b>x</b>” marked done.");
  });

  it("actions app: Dismiss by keyboard re-renders from the result, filters call the tool again, 375 px in dark theme", async () => {
    const frame = await mount("ui://crew/actions", "crew_list_actions", DARK);
    const bank = ids["Call the bank back"] as string;
    const dismiss = frame.getByRole("button", { name: "Dismiss: Call the bank back" });
    await dismiss.waitFor();
    expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(30, 30, 30)");
    await noHorizontalScroll(frame);
    await shoot("mcp-app-actions-dark");
    await frame.getByRole("button", { name: "Approve: Approve the Q3 budget" }).waitFor();
    expect(await frame.getByRole("button", { name: /^Approve: / }).count()).toBe(1);

    await dismiss.focus();
    await page.keyboard.press("Enter");
    await eventually(async () => (await statusOf(bank)) === "dismissed", "the action to be dismissed");
    // Drawn again from the stored action: dismissed, with no buttons left.
    const row = frame.locator(`[data-action-id="${bank}"]`);
    await row.getByText("dismissed").waitFor();
    expect(await row.locator("button").count()).toBe(0);

    await frame.locator('select[name="status"]').selectOption("pending");
    await frame.locator(`[data-action-id="${bank}"]`).waitFor({ state: "detached" });
    expect(await frame.locator("[data-action-id]").count()).toBe(1);
    expect(await frame.locator(".title").first().textContent()).toBe("Approve the Q3 budget");
  });

  it("says a refused change in the app's words and leaves the action as it was", async () => {
    behindHost = () => reader; // the document was read with write access; the connection now lacks it
    try {
      const frame = await mount("ui://crew/actions", "crew_list_actions");
      const budget = ids["Approve the Q3 budget"] as string;
      await frame.getByRole("button", { name: "Start: Approve the Q3 budget" }).click();
      await frame.locator("#status.problem").waitFor();
      expect(await frame.locator("#status").textContent()).toBe(
        "This connection may read the queue but not change it. Reconnect Crew with write access to act here.",
      );
      expect(await statusOf(budget)).toBe("pending");
      expect(await frame.getByRole("button", { name: "Start: Approve the Q3 budget" }).isEnabled()).toBe(true);
    } finally {
      behindHost = () => admin;
    }
  });
});
