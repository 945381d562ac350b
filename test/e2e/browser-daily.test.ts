/**
 * The web app as a daily tool (src/docs/notes/web-app.md#a-daily-tool), in headless Chromium: every page in light
 * and dark, at 1280 and 390 px, has plain words (no raw id, underscored enum value or variable
 * name outside <code>), text contrast of at least 4.5 and no sideways scroll; the theme toggle is
 * remembered; the keyboard works the queue (j, e, d, undo, ?, g a, /, Escape); mail evidence opens
 * Crew's own view of the mail, its time in the person's zone; suggestions filter by every agent
 * that writes them; the Settings menu is grouped.
 */

import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../src/demo/seed.ts";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH, signInToDashboard } from "../helpers/browser.ts";
import { watchedContext } from "../helpers/page-audit.ts";
import { contrastInPage, rawWordsInPage } from "../helpers/page-words.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let browser: Browser;
let rest: ReturnType<typeof api>;
let ownerEmail: string;
let memberEmail: string;

const MAIL = {
  ref: "<quote-2027@acme.example>",
  title: "Renewal quote for 2027 — Dana Lee",
  excerpt: "Hi, attached is the renewal quote for 2027: 48 seats, the same terms as this year.",
};

beforeAll(async () => {
  s = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const owner = await s.createUser("operator", undefined, "owner");
  ownerEmail = owner.email;
  rest = api(s.url, await s.createKey(owner, ["admin"]));
  memberEmail = (await s.createUser("lite")).email;
  await seedDemo(s.db, s.org, s.clock.now());
  // Records whose ids the pages used to show: a webhook and a source.
  const hook = await rest("/api/webhooks", { method: "POST", body: { url: "https://hooks.example.com/crew", events: ["action.created"] } });
  expect(hook.status, hook.text).toBe(200);
  const feed = await rest("/api/integrations/sources", {
    method: "POST",
    body: { kind: "feed", url: "https://news.example.com/feed.xml", agents: ["research"] },
  });
  expect(feed.status, feed.text).toBeLessThan(300);
  await s.db.execute(
    suggestionInsertStatement({
      id: "sug_daily_mail",
      orgId: s.org.id,
      agentId: "inbox",
      runId: null,
      title: "Answer Dana's renewal quote",
      detail: "Acme sent the 2027 renewal quote; it needs a reply this week.",
      priority: "high",
      createdAt: s.clock.now(),
      evidence: [{ kind: "mail", ...MAIL }],
    }),
  );
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const signIn = (page: Page, email: string) => signInToDashboard(page, s.url, email, TEST_PASSWORD);

/** Every page a signed-in owner reaches from the navigation, and the pages behind them. */
const PAGES = [
  "/dashboard",
  "/briefing",
  "/standup",
  "/actions",
  "/suggestions",
  "/profile",
  "/contacts",
  "/feed",
  "/handoffs",
  "/agents/inbox",
  "/agents/sales",
  `/evidence/mail?record=sug_daily_mail&ref=${encodeURIComponent(MAIL.ref)}`,
  "/settings/keys",
  "/connected-apps",
  "/settings/calendar",
  "/settings/webhooks",
  "/settings/users",
  "/settings/sources",
  "/settings/model",
  "/settings/notifications",
  "/settings/slack",
  "/settings/audit",
  "/settings/backups",
];

const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

const luminance = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number) as [number, number, number];
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
};

describe("every page, light and dark, at 1280 and 390 px", () => {
  for (const scheme of ["light", "dark"] as const) {
    it(`${scheme}: plain words, text contrast ≥ 4.5, no sideways scroll`, async () => {
      const context = await browser.newContext({ viewport: WIDTHS[0], colorScheme: scheme });
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      const words: string[] = [];
      const contrast: string[] = [];
      // Signed out first: the sign-in page.
      await page.goto(`${s.url}/sign-in`);
      for (const f of (await page.evaluate(contrastInPage)).low) contrast.push(`/sign-in: "${f.text}" ${f.ratio}`);
      await signIn(page, ownerEmail);
      const wide: string[] = [];
      const statuses: string[] = [];
      const backgrounds: string[] = [];
      for (const path of PAGES) {
        const response = await page.goto(`${s.url}${path}`);
        if (response?.status() !== 200) statuses.push(`${path}: ${response?.status()}`);
        for (const size of WIDTHS) {
          await page.setViewportSize(size);
          const where = `${path} at ${size.width}px`;
          if (scheme === "light" && size.width === 1280)
            for (const f of await page.evaluate(rawWordsInPage)) words.push(`${where}: "${f.word}" in "${f.context}"`);
          const { background, low } = await page.evaluate(contrastInPage);
          if (scheme === "dark" ? luminance(background) > 0.2 : luminance(background) < 0.8) backgrounds.push(`${where}: ${background}`);
          for (const f of low) contrast.push(`${where}: "${f.text}" ${f.ratio} (${f.color} on ${f.background})`);
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          if (width > size.width) wide.push(`${where}: ${width}px wide`);
        }
        await page.setViewportSize(WIDTHS[0]!);
      }
      // What opens over a page: the Settings menu and the list of keys.
      await page.goto(`${s.url}/actions`);
      await page.getByText("Settings", { exact: true }).click();
      for (const f of (await page.evaluate(contrastInPage)).low) contrast.push(`Settings menu: "${f.text}" ${f.ratio}`);
      await page.keyboard.press("Escape");
      await page.keyboard.press("?");
      await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
      for (const f of (await page.evaluate(contrastInPage)).low) contrast.push(`keys: "${f.text}" ${f.ratio}`);
      expect({ statuses, backgrounds, words, contrast, wide }).toEqual({
        statuses: [],
        backgrounds: [],
        words: [],
        contrast: [],
        wide: [],
      });
      await context.close();
    });
  }
});

describe("the theme toggle", () => {
  it("is remembered: chosen once in the Settings menu, every later page is dark", async () => {
    const context = await browser.newContext({ viewport: WIDTHS[0], colorScheme: "light" });
    const page = await context.newPage();
    await signIn(page, memberEmail);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(luminance(await background())).toBeGreaterThan(0.8);
    await page.getByText("Settings", { exact: true }).click();
    await page.getByRole("button", { name: "Dark" }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    expect(luminance(await background())).toBeLessThan(0.2);
    await page.goto(`${s.url}/actions`);
    expect(luminance(await background())).toBeLessThan(0.2);
    await expect(page.locator("html").getAttribute("data-theme")).resolves.toBe("dark");
    // The menu is closed again: its buttons are read from the markup (pressed: the current choice).
    await expect(page.locator("button[name=theme][value=dark]").getAttribute("aria-pressed")).resolves.toBe("true");
    await expect(page.locator("button[name=theme][value=system]").getAttribute("aria-pressed")).resolves.toBe("false");
    // Back to the system's choice.
    await page.getByText("Settings", { exact: true }).click();
    await page.getByRole("button", { name: "System" }).click();
    await page.waitForURL(`${s.url}/actions`);
    expect(luminance(await background())).toBeGreaterThan(0.8);
    await context.close();
  });
});

describe("the keyboard", () => {
  let context: BrowserContext;
  let problems: string[];
  beforeAll(async () => {
    ({ context, problems } = await watchedContext(browser, s.url));
  });
  afterAll(() => context?.close());

  it("on /actions: j then e marks the second action done, Undo restores it; d on a suggestion, Undo; ? lists the keys; Escape closes the Settings menu", async () => {
    const page = await context.newPage();
    await signIn(page, memberEmail);
    await page.goto(`${s.url}/actions`);
    const queue = (await rest("/api/mcp/actions?view=open")).json.actions as { id: string; title: string; status: string }[];
    const second = queue[1]!;
    await page.keyboard.press("j");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe(second.id);
    await expect(page.locator("#kbd-status").textContent()).resolves.toContain(second.title);
    await page.keyboard.press("e");
    await page.waitForURL(/done=done/);
    expect((await rest(`/api/mcp/actions/${second.id}`)).json.status).toBe("done");
    await page.getByRole("button", { name: "Undo" }).click();
    await page.waitForURL(/done=pending|done=approved|done=in_progress/);
    expect((await rest(`/api/mcp/actions/${second.id}`)).json.status).toBe(second.status);

    // d dismisses at once (no dialog: the notice offers Undo instead).
    await page.keyboard.press("j");
    await page.keyboard.press("d");
    await page.waitForURL(/done=dismissed/);
    expect((await rest(`/api/mcp/actions/${second.id}`)).json.status).toBe("dismissed");
    await page.getByRole("button", { name: "Undo" }).click();
    await page.waitForURL(/done=/);
    expect((await rest(`/api/mcp/actions/${second.id}`)).json.status).toBe(second.status);

    // On /suggestions: d dismisses the current suggestion, Undo puts it back among the open ones.
    await page.goto(`${s.url}/suggestions?agent=inbox`);
    await page.keyboard.press("d");
    await page.waitForURL(/done=suggestion_dismissed/);
    const dismissed = (await rest("/api/mcp/suggestions?status=dismissed")).json.suggestions as { id: string }[];
    expect(dismissed.map((x) => x.id)).toContain("sug_daily_mail");
    await page.getByRole("button", { name: "Undo" }).click();
    await page.waitForURL(/done=suggestion_reopened/);
    const open = (await rest("/api/mcp/suggestions?agent=inbox")).json.suggestions as { id: string }[];
    expect(open.map((x) => x.id)).toContain("sug_daily_mail");

    await page.keyboard.press("?");
    const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await keys.waitFor();
    for (const key of ["j", "k", "e", "a", "d", "s", "/", "g d", "g b", "g a", "?"])
      await expect(keys.locator("kbd", { hasText: new RegExp(`^${key.replace(/[?/]/g, "\\$&")}$`) }).count(), key).resolves.toBeGreaterThan(
        0,
      );
    await page.keyboard.press("Escape");
    await keys.waitFor({ state: "hidden" });

    await page.getByText("Settings", { exact: true }).click();
    await expect(page.locator("details.menu").getAttribute("open")).resolves.toBe("");
    await page.keyboard.press("Escape");
    await expect(page.locator("details.menu").getAttribute("open")).resolves.toBeNull();

    await page.keyboard.press("g");
    await page.keyboard.press("d");
    await page.waitForURL(`${s.url}/dashboard`);
    await page.keyboard.press("g");
    await page.keyboard.press("a");
    await page.waitForURL(`${s.url}/actions`);
    await page.goto(`${s.url}/contacts`);
    await page.keyboard.press("/");
    await expect(page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).resolves.toBe("search");
    expect(problems).toEqual([]);
  });
});

describe("evidence and suggestions", () => {
  it("a mail cited as evidence opens Crew's view of it; /suggestions?agent=inbox filters; Dismiss opens the reason box", async () => {
    const context = await browser.newContext({ viewport: WIDTHS[0] });
    const page = await context.newPage();
    await signIn(page, memberEmail);
    await page.goto(`${s.url}/suggestions`);
    await page.getByRole("navigation", { name: "Agent" }).getByRole("link", { name: "Inbox" }).click();
    await page.waitForURL(`${s.url}/suggestions?agent=inbox`);
    const inbox = (await rest("/api/mcp/suggestions?agent=inbox")).json.suggestions as { title: string }[];
    expect(inbox.map((x) => x.title)).toContain("Answer Dana's renewal quote");
    expect(await page.locator(".suggestion .action-title").allTextContents()).toEqual(inbox.map((x) => x.title));
    for (const agent of ["calendar", "finance", "research", "slack"])
      await expect(
        page
          .getByRole("navigation", { name: "Agent" })
          .getByRole("link", { name: new RegExp(agent, "i") })
          .count(),
      ).resolves.toBe(1);

    // The reason box is closed until Dismiss is chosen.
    const item = page.locator("#sug_daily_mail");
    await expect(item.getByLabel(/Why dismiss/).isVisible()).resolves.toBe(false);
    await item.getByText("Dismiss…").click();
    await expect(item.getByLabel(/Why dismiss/).isVisible()).resolves.toBe(true);

    await item.getByRole("link", { name: "Renewal quote for 2027 — Dana Lee" }).click();
    await page.waitForURL(/\/evidence\/mail\?/);
    await expect(page.locator("h1").textContent()).resolves.toBe("Renewal quote for 2027");
    await expect(page.locator(".mail-from").textContent()).resolves.toContain("Dana Lee");
    await expect(page.locator(".mail-excerpt").textContent()).resolves.toBe(MAIL.excerpt);
    await expect(page.getByRole("link", { name: /Answer Dana's renewal quote/ }).count()).resolves.toBe(1);
    // Times in the person's zone: the cited time (09:00 UTC by the test clock) is 18:00 in Tokyo.
    await s.db.execute({ sql: "UPDATE users SET time_zone = ? WHERE email = ?", args: ["Asia/Tokyo", memberEmail] });
    await page.reload();
    await expect(page.locator(".mail-view time").getAttribute("title")).resolves.toMatch(/6:00\sPM|18:00/);

    // A ref the record does not cite is a 404 page, not someone else's mail.
    const other = await page.goto(`${s.url}/evidence/mail?record=sug_daily_mail&ref=${encodeURIComponent("<other@acme.example>")}`);
    expect(other?.status()).toBe(404);
    await context.close();
  });

  it("a member's Settings menu shows only what is theirs, under You; an owner's has Organization too", async () => {
    const context = await browser.newContext({ viewport: WIDTHS[0] });
    const page = await context.newPage();
    await signIn(page, memberEmail);
    const groups = () => page.locator(".menu-list .menu-group").allTextContents();
    await expect(groups()).resolves.toEqual(["You"]);
    await expect(page.locator(".menu-list a[href='/settings/users']").count()).resolves.toBe(0);
    await expect(page.locator(".menu-list a[href='/settings/sources']").count()).resolves.toBe(0);
    await page.context().clearCookies();
    await signIn(page, ownerEmail);
    await expect(groups()).resolves.toEqual(["Organization", "You"]);
    await context.close();
  });
});
