/**
 * The webhooks page in a real browser (headless Debian Chromium via playwright-core): sign in →
 * add a webhook → copy its secret with the button → an action is delivered to a loopback receiver
 * signed with that secret → delete it after confirming. Wide and narrow screens, no horizontal
 * scrolling, no script or CSP errors. Screenshots go to test/artifacts/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverDue } from "../../src/webhooks/deliver.ts";
import { launchBrowser, type TestBrowser } from "../helpers/browser.ts";
import { client } from "../helpers/rest.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver, verifyAt } from "../helpers/webhooks.ts";

let s: TestServer;
let browser: TestBrowser;
let receiver: Receiver;

beforeAll(async () => {
  s = await startServer();
  receiver = await startReceiver();
  browser = await launchBrowser({ clipboardOrigin: s.url });
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await s?.close();
});

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("webhooks page in the browser", () => {
  it("adds a webhook, copies its secret, receives a signed event, and deletes it", async () => {
    const user = await s.createUser("operator", undefined, "owner");
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    const scriptErrors: string[] = [];
    page.on("pageerror", (e) => scriptErrors.push(String(e)));
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) scriptErrors.push(m.text());
    });

    await page.goto(`${s.url}/settings/webhooks`);
    await page.waitForURL(/\/sign-in\?next=%2Fsettings%2Fwebhooks$/);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/settings/webhooks`);
    await page.getByText("No webhooks yet.").waitFor();

    // Nothing chosen: the page says what to fix.
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByLabel("action.created").uncheck();
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.getByText("Choose at least one event.").waitFor();
    expect(await page.getByLabel("URL").inputValue()).toBe(receiver.url);

    await page.getByLabel("action.created").check();
    await page.getByLabel(/Description/).fill("Loopback receiver");
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.getByRole("heading", { name: "Webhook created" }).waitFor();
    await page.getByRole("button", { name: "Copy" }).click();
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByLabel("Signing secret").inputValue()).toBe(secret);
    await page.getByRole("row", { name: /Loopback receiver/ }).waitFor();
    expect(await noHorizontalScroll(page)).toBe(true);
    await browser.screenshot(page, "webhooks-created-1280");

    // The secret from the page verifies a real delivery.
    const { call } = await client(s, "operator", ["admin"]);
    const added = await call("/api/mcp/actions", { body: { title: "Seen by the receiver" } });
    expect(await deliverDue(s.deps)).toMatchObject({ delivered: 1 });
    expect(verifyAt(secret, receiver.hits[0]!, s.clock.now())).toMatchObject({ actionId: added.json.actionId });

    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${s.url}/settings/webhooks`);
    expect(await page.getByLabel("Signing secret").count()).toBe(0); // shown once only
    expect(await noHorizontalScroll(page)).toBe(true);
    await browser.screenshot(page, "webhooks-375");

    await page.getByText("Delete…").click();
    await page.getByText(/Delete the webhook to http:\/\/127\.0\.0\.1/).waitFor();
    await page.getByRole("button", { name: /Delete webhook/ }).click();
    await page.waitForURL(`${s.url}/settings/webhooks?deleted=1`);
    await page.getByText("Webhook deleted.").waitFor();
    await page.getByText("No webhooks yet.").waitFor();
    expect(scriptErrors).toEqual([]);
  });
});
