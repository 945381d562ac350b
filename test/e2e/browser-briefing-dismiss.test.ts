/**
 * Dismiss in the briefing (src/docs/notes/web-app.md) in headless Chromium: the briefing's
 * recommendations carry the same controls as /suggestions (one form, the updateSuggestion
 * operation); Dismiss with a reason returns to the briefing, which says so and no longer shows it,
 * and REST lists it dismissed with that reason; "Based on" links to the evidence.
 */
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../helpers/browser.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let browser: Browser;

beforeAll(async () => {
  s = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const suggestion = (id: string, title: string, priority: "high" | "medium", minutesAgo: number) =>
  suggestionInsertStatement({
    id,
    orgId: s.org.id,
    agentId: "sales",
    runId: null,
    title,
    detail: "",
    priority,
    createdAt: s.clock.now() - minutesAgo * 60_000,
    evidence: [{ kind: "feed_item", ref: `guid-${id}`, title: `Source of ${title}`, url: `https://news.example.com/${id}` }],
  });

describe("the briefing's recommendations", () => {
  it("have Dismiss with an optional reason, the same form as /suggestions: back to the briefing, gone, remembered with its reason", async () => {
    await s.db.batch(
      [suggestion("sug_keep", "Call Acme about renewal", "high", 5), suggestion("sug_drop", "Match Acme's price cut", "medium", 1)],
      "write",
    );
    const member = await s.createUser("operator");
    const rest = api(s.url, await s.createKey(member, ["admin"]));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/sign-in`);
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/dashboard`);

    await page.goto(`${s.url}/briefing`);
    expect((await page.locator("ol.numbered li .action-title").allTextContents()).map((t) => t.trim())).toEqual([
      "Call Acme about renewal",
      "Match Acme's price cut",
    ]);
    const drop = page.locator("#sug_drop");
    expect(await drop.getByRole("link", { name: "Source of Match Acme's price cut" }).getAttribute("href")).toBe(
      "https://news.example.com/sug_drop",
    );
    await drop.getByText("Dismiss…").click(); // the reason box opens on Dismiss
    await drop.getByLabel(/^Why dismiss/).fill("We compete on service.");
    await drop.getByRole("button", { name: /^Dismiss/ }).click();
    await page.waitForURL(`${s.url}/briefing?done=suggestion_dismissed&undo=sug_drop&was=open`);
    expect(await page.locator(".alert-success, [role=status]").first().textContent()).toContain("will not suggest it again");
    expect(await page.locator("#sug_drop").count()).toBe(0);
    expect(await page.locator("#sug_keep").count()).toBe(1);

    expect((await rest("/api/mcp/suggestions?status=dismissed")).json.suggestions).toEqual([
      expect.objectContaining({ id: "sug_drop", reason: "We compete on service." }),
    ]);
    expect((await rest("/api/mcp/suggestions")).json.suggestions.map((x: { id: string }) => x.id)).toEqual(["sug_keep"]);
    await context.close();
  });
});
