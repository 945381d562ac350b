/**
 * `/settings/notifications` and `/settings/slack` in headless Chromium (src/docs/notes/delivery.md): a member turns
 * the briefing mail off and the Slack DM on (REST sees it) and sees no owner parts; an owner
 * connects Slack (the token never shown back), saves a Teams webhook, and reads the delivery log;
 * a member gets the owners-only page for /settings/slack. Pages pass the audit at 1280 and 375 px.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueMessageStatement } from "../../src/store/delivery/messages.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH, signInToDashboard } from "../helpers/browser.ts";
import { auditInPage, WIDTHS, watchedContext } from "../helpers/page-audit.ts";
import { type ScriptedSlack, startScriptedSlack } from "../helpers/scripted-slack.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let slack: ScriptedSlack;
let browser: Browser;
let ownerEmail: string;
let memberEmail: string;
const TOKEN = "xoxb-1234567890-browser-token";

beforeAll(async () => {
  // Saving a token checks it with Slack (auth.test): a scripted Slack API on loopback answers.
  slack = await startScriptedSlack();
  s = await startServer({ env: { SLACK_API_URL: slack.url } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  ownerEmail = (await s.createUser("operator", undefined, "owner")).email;
  const member = await s.createUser("lite");
  memberEmail = member.email;
  await s.db.execute(
    enqueueMessageStatement(
      { orgId: s.org.id, userId: member.id, channel: "email", kind: "briefing", dedupeKey: null, payload: { date: "2026-11-27" } },
      s.clock.now(),
    ),
  );
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await slack?.close();
});

const signIn = (page: Page, email: string) => signInToDashboard(page, s.url, email, TEST_PASSWORD);

async function audit(page: Page, where: string): Promise<void> {
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    const found = await page.evaluate(auditInPage);
    expect(found.h1, `${where} at ${size.width}px`).toBe(1);
    expect(found.unlabelled, `${where} at ${size.width}px`).toEqual([]);
    expect(found.overflow, `${where} at ${size.width}px`).toEqual([]);
  }
  await page.setViewportSize(WIDTHS[0]!);
}

describe("notification settings in the browser", () => {
  it("a member turns the briefing mail off and the Slack DM on; no owner parts; /settings/slack is owners only", async () => {
    const { context, problems } = await watchedContext(browser, s.url);
    const page = await context.newPage();
    await signIn(page, memberEmail);
    await page.goto(`${s.url}/settings/notifications`);
    await audit(page, "notifications (member)");
    const mail = page.getByLabel("By email, after the morning briefing run");
    const dm = page.getByLabel(/As a Slack direct message/);
    expect(await mail.isChecked()).toBe(true);
    expect(await dm.isChecked()).toBe(false);
    await mail.uncheck();
    await dm.check();
    await page.getByRole("button", { name: "Save preferences" }).click();
    await page.waitForURL(/done=saved/);
    expect(await page.getByText("Preferences saved.").count()).toBe(1);
    expect(await page.getByLabel("By email, after the morning briefing run").isChecked()).toBe(false);
    expect(await page.getByLabel(/As a Slack direct message/).isChecked()).toBe(true);
    const prefs = await page.evaluate(async () => (await fetch("/api/me/notifications")).json());
    expect(prefs).toEqual({ briefingEmail: false, briefingSlack: true });
    expect(await page.getByRole("heading", { name: "Delivery log" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Microsoft Teams" }).count()).toBe(0);

    const slack = await page.goto(`${s.url}/settings/slack`);
    expect(slack?.status()).toBe(403);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("an owner connects Slack, saves a Teams webhook, and reads the delivery log", async () => {
    const { context, problems } = await watchedContext(browser, s.url);
    const page = await context.newPage();
    await signIn(page, ownerEmail);
    await page.goto(`${s.url}/settings/slack`);
    await audit(page, "slack (not connected)");
    await page.getByLabel("Bot token").fill(TOKEN);
    await page.getByLabel("Standup channel").fill("#standup");
    await page.getByLabel(/Channels the Slack agent reads/).fill("C0SUPPORT1, C0SALES001");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/done=connected/);
    expect(await page.getByText("Slack connected.").count()).toBe(1);
    const html = await page.content();
    expect(html).toContain("C0SUPPORT1, C0SALES001");
    expect(html).not.toContain(TOKEN);
    await audit(page, "slack (connected)");

    await page.getByLabel("Bot token").fill("not a token");
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.getByText("Must be a Slack bot token (xoxb-…).").count()).toBe(1);

    await page.goto(`${s.url}/settings/notifications`);
    await page.getByLabel("Incoming-webhook URL (Teams Workflows)").fill("https://example.webhook.office.com/workflows/abc");
    await page.getByRole("button", { name: "Save the Teams webhook" }).click();
    await page.waitForURL(/done=teams/);
    expect(await page.getByText("example.webhook.office.com").count()).toBeGreaterThan(0);
    const log = page.locator("table").filter({ hasText: "briefing by email" });
    expect(await log.count()).toBe(1);
    expect(await log.getByText(memberEmail).count()).toBe(1);
    await audit(page, "notifications (owner)");
    expect(problems).toEqual([]);
    await context.close();
  });
});
