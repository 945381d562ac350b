/**
 * Accounts in a real browser (headless Debian Chromium via playwright-core): first-run setup →
 * sign out → sign in → create a key → read it from the page → use it → revoke it in the page →
 * the same call is now 401. Screenshots go to test/artifacts/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSetupLink } from "../../src/auth/setup.ts";
import { launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { insertAlert, insertPastRuns } from "../helpers/web.ts";

let s: TestServer;
let browser: TestBrowser;

/** A few runs and an alert, so the dashboard shows every health state. */
async function seedSomeRuns(server: TestServer): Promise<void> {
  await insertPastRuns(server, [
    { agent: 0, status: "ok", hoursAgo: 2, summary: "Pipeline steady: 14 open deals, 3 need follow-up this week." },
    { agent: 1, status: "ok", hoursAgo: 5, summary: "Inbox triaged: 2 urgent threads flagged for today." },
    { agent: 2, status: "error", hoursAgo: 1, summary: "Calendar sync failed: credentials expired." },
    { agent: 3, status: "ok", hoursAgo: 30, summary: "Weekly metrics compiled." },
    { agent: 4, status: "ok", hoursAgo: 0.5, summary: "Three new leads scored; one is a strong fit." },
  ]);
  await insertAlert(server, "alr_test1", "Calendar credentials expired: reconnect the calendar.", 2);
}

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

beforeAll(async () => {
  s = await startServer();
  await seedSomeRuns(s);
  browser = await launchBrowser({ clipboardOrigin: s.url });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe("accounts in the browser", () => {
  it("setup → sign out → sign in → create, use and revoke a key", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    const scriptErrors: string[] = [];
    page.on("pageerror", (e) => scriptErrors.push(String(e)));
    page.on("console", (m) => {
      // Error statuses of documents (the 401 of a wrong password) are expected; script and CSP errors are not.
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) scriptErrors.push(m.text());
    });

    // First-run setup from the printed link.
    const link = await ensureSetupLink(s.db, s.config, s.clock.now());
    await page.goto(link!);
    await page.getByLabel("Your name").fill("Olivia Owner");
    await page.getByLabel("Email").fill("olivia@example.com");
    await page.getByLabel(/Password/).fill("a long enough password");
    await browser.screenshot(page, "setup");
    await page.getByRole("button", { name: "Create owner account" }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    expect(await page.locator("tbody tr").count()).toBe(17);
    expect(await page.locator("tbody .badge-error").count()).toBe(1);
    await page.getByText("Calendar credentials expired").waitFor();
    await browser.screenshot(page, "dashboard");

    // The link works once.
    const reuse = await browser.newPage();
    const again = await reuse.goto(link!);
    expect(again?.status()).toBe(410);
    await reuse.close();

    // Sign out, then sign in again.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${s.url}/sign-in`);
    await page.goto(`${s.url}/settings/keys`);
    await page.waitForURL(/\/sign-in\?next=%2Fsettings%2Fkeys$/);
    await page.getByLabel("Email").fill("olivia@example.com");
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("The email or password is wrong.");
    await browser.screenshot(page, "sign-in-error");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/settings/keys`);

    // Create a key; the raw key is shown once.
    await page.getByLabel("Name").fill("Browser test key");
    await page.getByLabel("agents", { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const field = page.getByLabel("New API key");
    const key = await field.inputValue();
    expect(key).toMatch(/^crew_[a-z2-7]{52,}$/);
    const copy = page.getByRole("button", { name: "Copy" });
    await copy.click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await browser.screenshot(page, "key-created");

    const call = api(s.url, key);
    const ok = await call("/api/mcp/agents");
    expect(ok.status).toBe(200);
    expect(ok.json.total).toBe(17);

    // The list shows the key with its last use; revoke it with the confirmation step.
    await page.goto(`${s.url}/settings/keys`);
    const row = page.locator("tbody tr", { hasText: "Browser test key" });
    await expect(row.getByText("just now").count()).resolves.toBe(2); // created and last used
    await row.getByText("Revoke…").click();
    await browser.screenshot(page, "key-revoke-confirm");
    await row.getByRole("button", { name: "Revoke key “Browser test key”" }).click();
    await page.waitForURL(`${s.url}/settings/keys?revoked=1`);
    await expect(page.getByRole("status").textContent()).resolves.toContain("Key revoked.");
    await page.getByText("No active keys.").waitFor();

    const refused = await call("/api/mcp/agents");
    expect(refused.status).toBe(401);
    expect(scriptErrors).toEqual([]);
    await page.close();
  });

  it("fits a 375 px wide screen", async () => {
    const user = await s.createUser("operator");
    const phone = await launchBrowser({ viewport: { width: 375, height: 812 } });
    try {
      const page = await phone.newPage();
      await page.goto(`${s.url}/sign-in`);
      expect(await noHorizontalScroll(page)).toBe(true);
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(TEST_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${s.url}/dashboard`);
      expect(await noHorizontalScroll(page)).toBe(true);
      await phone.screenshot(page, "dashboard-375");
      await phone.screenshot(page, "dashboard-375-top", { fullPage: false });
      await page.getByRole("link", { name: "API keys" }).first().click();
      await page.getByLabel("Name").fill("Phone key");
      await page.getByRole("button", { name: "Create key" }).click();
      await expect(page.getByLabel("New API key").inputValue()).resolves.toMatch(/^crew_/);
      expect(await noHorizontalScroll(page)).toBe(true);
      await phone.screenshot(page, "keys-375", { fullPage: false });
    } finally {
      await phone.close();
    }
  });
});
