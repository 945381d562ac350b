/**
 * The web app for people in headless Chromium (src/docs/notes/web-app.md, issue 13): a `lite` member reads every
 * page and sees what REST answers for the organization; members act (actions, suggestions, feed,
 * handoffs, contacts) and REST sees it with source "web"; a web action raises the same event as
 * REST (the standup is regenerated); owner pages are owners' only. Every page is audited at 1280
 * and 375 px and screenshotted into test/artifacts/screenshots/; the main flows run again with
 * JavaScript off.
 */

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegenerator } from "../../src/agents/regenerate.ts";
import { seedDemo } from "../../src/demo/seed.ts";
import { AGENTS } from "../../src/domain.ts";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { ARTIFACTS_DIR, CHROMIUM_ARGS, CHROMIUM_PATH, signInToDashboard } from "../helpers/browser.ts";
import { auditInPage, focusIsVisible, WIDTHS, watchedContext } from "../helpers/page-audit.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

const SHOTS = join(ARTIFACTS_DIR, "screenshots");

let s: TestServer;
let browser: Browser;
let rest: ReturnType<typeof api>;
let memberEmail: string;

beforeAll(async () => {
  s = await startServer();
  await mkdir(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const owner = await s.createUser("operator", undefined, "owner");
  rest = api(s.url, await s.createKey(owner, ["admin"]));
  memberEmail = (await s.createUser("lite")).email;
  await seedDemo(s.db, s.org, s.clock.now());
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const signIn = (page: Page, email: string) => signInToDashboard(page, s.url, email, TEST_PASSWORD);

/** The audit at both widths, with a screenshot of each (full page). */
async function auditAndShoot(page: Page, name: string): Promise<void> {
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    const found = await page.evaluate(auditInPage);
    const where = `${name} at ${size.width}px`;
    expect(found.h1, where).toBe(1);
    expect(found.unlabelled, where).toEqual([]);
    expect(found.overflow, where).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `${name}-${size.width}.png`), fullPage: true });
  }
  await page.setViewportSize(WIDTHS[0]!);
}

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
const money = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`;

describe("a lite member reads every page", () => {
  it("sees the numbers REST answers for the organization, on pages that pass the audit at 1280 and 375 px", async () => {
    const { context, problems } = await watchedContext(browser, s.url);
    const page = await context.newPage();
    await signIn(page, memberEmail);

    // Dashboard: health counts as GET /api/mcp/agents; no getting started (there is content).
    const agents = (await rest("/api/mcp/agents")).json;
    const stats = await texts(page, ".stats .stat-value");
    expect(stats.map(Number)).toEqual([agents.total, agents.healthy, agents.stale, agents.errors, agents.neverRan]);
    await expect(page.locator(".getting-started").count()).resolves.toBe(0);
    await expect(page.getByRole("link", { name: "Users" }).count()).resolves.toBe(0); // owner page, not in a member's menu
    expect(await focusIsVisible(page)).toEqual([]);
    await auditAndShoot(page, "dashboard");

    // Briefing: the member's own (stored by the demo seed), recommendations as REST composes them.
    await page.goto(`${s.url}/briefing`);
    const briefing = (await rest("/api/mcp/briefing")).json;
    expect((await texts(page, "ol.numbered li .action-title")).map((t) => t.trim())).toEqual(briefing.recommendations);
    await auditAndShoot(page, "briefing");

    // Standup: interventions and metrics of GET /api/mcp/standup; the tabs are links.
    await page.goto(`${s.url}/standup`);
    const standup = (await rest("/api/mcp/standup")).json;
    const interventions = await page.locator("#int-h + ul li").allInnerTexts();
    expect(interventions.map((t) => t.replace(/\s+/g, " "))).toEqual(
      standup.interventions.map(
        (i: { priority: string; title: string; agent: string }) => `${i.priority} ${i.title} ${AGENTS.find((a) => a.id === i.agent)?.name}`,
      ),
    );
    await expect(page.locator(".stat-value").last().textContent()).resolves.toBe(money(standup.metrics.mrr));
    await auditAndShoot(page, "standup");
    await page.getByRole("link", { name: "Evening" }).click();
    await page.waitForURL(`${s.url}/standup?mode=evening`);
    await expect(page.locator(".lead").textContent()).resolves.toContain("Evening standup");

    // Actions: the open work by default, in REST's order (view=open), and a filter as a shareable link.
    await page.goto(`${s.url}/actions`);
    const queue = (await rest("/api/mcp/actions?view=open")).json;
    expect(await texts(page, ".action-item .action-title")).toEqual(queue.actions.map((a: { title: string }) => a.title));
    await auditAndShoot(page, "actions");
    await page.goto(`${s.url}/actions?status=done`);
    const done = (await rest("/api/mcp/actions?status=done")).json;
    expect(await texts(page, ".action-item .action-title")).toEqual(done.actions.map((a: { title: string }) => a.title));

    // Suggestions, all and by agent.
    await page.goto(`${s.url}/suggestions`);
    const suggestions = (await rest("/api/mcp/suggestions")).json.suggestions;
    expect(await texts(page, ".suggestion .action-title")).toEqual(suggestions.map((x: { title: string }) => x.title));
    await auditAndShoot(page, "suggestions");
    await page.getByRole("navigation", { name: "Agent" }).getByRole("link", { name: "Sales" }).click();
    await page.waitForURL(`${s.url}/suggestions?agent=sales`);
    const sales = (await rest("/api/mcp/suggestions?agent=sales")).json.suggestions;
    expect(await texts(page, ".suggestion .action-title")).toEqual(sales.map((x: { title: string }) => x.title));

    // Profile: archetype and the pipeline's totals per stage.
    await page.goto(`${s.url}/profile`);
    const dna = (await rest("/api/mcp/dna")).json;
    await expect(page.locator(".archetype").textContent()).resolves.toBe(dna.archetype);
    for (const stage of ["lead", "qualified", "proposal", "negotiation", "closed"]) {
      const total = dna.pipeline
        .filter((d: { stage: string }) => d.stage === stage)
        .reduce((sum: number, d: { value: number }) => sum + d.value, 0);
      await expect(page.locator(`tr[data-stage="${stage}"] .stage-total`).textContent()).resolves.toBe(money(total));
    }
    await expect(page.locator(".pipeline-total").textContent()).resolves.toBe(
      money(dna.pipeline.reduce((sum: number, d: { value: number }) => sum + d.value, 0)),
    );
    await auditAndShoot(page, "profile");

    // Contacts: the list and a search, as GET /api/mcp/contacts.
    await page.goto(`${s.url}/contacts`);
    const contacts = (await rest("/api/mcp/contacts")).json.contacts;
    expect(await texts(page, "table.contacts tbody th")).toEqual(contacts.map((c: { name: string }) => c.name));
    await auditAndShoot(page, "contacts");
    const company = contacts[0].company as string;
    await page.getByLabel("Search by name, email or company").fill(company);
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/contacts\?q=/);
    const found = (await rest(`/api/mcp/contacts?q=${encodeURIComponent(company)}`)).json.contacts;
    expect(await texts(page, "table.contacts tbody th")).toEqual(found.map((c: { name: string }) => c.name));

    // Feed, handoffs, an agent's page: what is stored.
    await page.goto(`${s.url}/feed`);
    const insights = await s.db.execute({ sql: "SELECT title FROM insights WHERE org_id = ? ORDER BY id DESC LIMIT 30", args: [s.org.id] });
    expect(await texts(page, ".insight .action-title")).toEqual(insights.rows.map((r) => String(r.title)));
    await auditAndShoot(page, "feed");
    await page.goto(`${s.url}/handoffs`);
    await expect(page.locator(".handoff").count()).resolves.toBeGreaterThan(0);
    await auditAndShoot(page, "handoffs");
    await page.goto(`${s.url}/agents/pulse`);
    const runs = (await rest("/api/agents/pulse/runs")).json.runs;
    await expect(page.locator("#runs-h + .table-wrap tbody tr").count()).resolves.toBe(runs.length);
    await expect(page.getByRole("textbox", { name: /^Schedule/ }).count()).resolves.toBe(0); // members do not edit schedules
    await auditAndShoot(page, "agent");

    // Owner pages answer a member with a 403 page that leads back.
    const refused = await page.goto(`${s.url}/settings/users`);
    expect(refused?.status()).toBe(403);
    await expect(page.locator("h1").textContent()).resolves.toBe("Owners only");
    await auditAndShoot(page, "owners-only");
    await page.getByRole("link", { name: "Back to the dashboard" }).click();
    await page.waitForURL(`${s.url}/dashboard`);

    // A page that does not exist: HTML with a way back (issue 11 item 14).
    const missing = await page.goto(`${s.url}/no-such-page`);
    expect(missing?.status()).toBe(404);
    await auditAndShoot(page, "not-found");
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("acting in the browser", () => {
  it("adds, approves, finishes and re-lanes actions, turns a suggestion into one, posts an insight, a handoff and a contact; REST sees source web", async () => {
    const regenerator = createRegenerator(s.deps, { timers: false });
    const { context, problems } = await watchedContext(browser, s.url);
    const page = await context.newPage();
    page.on("dialog", (d) => void d.accept()); // the dismiss confirmation
    await signIn(page, memberEmail);

    // Add a critical action: stored with source web, and the standup is regenerated with it first.
    await regenerator.flush();
    const standupBefore = (await rest("/api/mcp/standup")).json;
    await page.goto(`${s.url}/actions`);
    await page.getByLabel("Title").fill("Call the bank about the wire");
    await page.getByLabel("Priority", { exact: true }).selectOption("critical");
    await page.getByRole("button", { name: "Add action" }).click();
    await page.waitForURL(`${s.url}/actions?done=added`);
    await expect(page.getByRole("status").textContent()).resolves.toBe("Action added.");
    const mine = (await rest("/api/mcp/actions?source=web")).json.actions;
    expect(mine.map((a: { title: string; priority: string; source: string }) => [a.title, a.priority, a.source])).toEqual([
      ["Call the bank about the wire", "critical", "web"],
    ]);
    // The same action.created event as REST: the regenerator has the organization pending; the
    // server flushes it after its debounce (under 5 s), the test flushes it at once.
    expect(regenerator.pending()).toBe(1);
    await regenerator.flush();
    const standup = (await rest("/api/mcp/standup")).json;
    // Regenerated: the day's standup is replaced (src/docs/notes/operating.md retention), so it is newer, not one more row.
    expect(standup.generatedAt > standupBefore.generatedAt).toBe(true);
    expect(standup.interventions[0]).toEqual({ title: "Call the bank about the wire", priority: "critical", agent: "web" });
    await regenerator.stop();

    // A task has no Approve (only approval actions do): start it, then done; it leaves the open
    // queue, each change saying what changed; an agent's approval action is approved.
    const id = mine[0].id as string;
    const item = page.locator(`#${id}`);
    await expect(item.getByRole("button", { name: /^Approve/ }).count()).resolves.toBe(0);
    await item.getByRole("button", { name: "Start “Call the bank about the wire”" }).click();
    await page.waitForURL(/done=in_progress/);
    await expect(page.getByRole("status").textContent()).resolves.toBe("Action started: it is in progress.");
    expect((await rest("/api/mcp/actions?status=in_progress&source=web")).json.actions[0].id).toBe(id);
    await page.locator(`#${id}`).getByRole("button", { name: "Done “Call the bank about the wire”" }).click();
    await page.waitForURL(/done=done/);
    expect((await rest("/api/mcp/actions?status=done&source=web")).json.actions.map((a: { id: string }) => a.id)).toEqual([id]);
    await expect(page.locator(`#${id}`).count()).resolves.toBe(0);
    await page.getByRole("link", { name: "All, done and dismissed too" }).click();
    await expect(page.locator(`#${id}.action-closed`).count()).resolves.toBe(1);
    await page.goto(`${s.url}/actions`);
    const approval = (await rest("/api/mcp/actions?status=pending&type=approval")).json.actions[0];
    await page
      .locator(`#${approval.id}`)
      .getByRole("button", { name: /^Approve/ })
      .click();
    await page.waitForURL(/done=approved/);
    await expect(page.getByRole("status").textContent()).resolves.toBe("Action approved.");
    expect((await rest(`/api/mcp/actions/${approval.id}`)).json.status).toBe("approved");

    const pending = (await rest("/api/mcp/actions?status=pending&limit=2")).json.actions;
    const other = page.locator(`#${pending[0].id}`);
    await other.locator("summary", { hasText: "Priority and lane" }).click();
    await other.getByLabel(/^Lane/).selectOption("later");
    await other.getByLabel(/^Priority/).selectOption("low");
    await other.getByRole("button", { name: /^Save/ }).click();
    await page.waitForURL(/done=changed/);
    const changed = (await rest("/api/mcp/actions?lane=later&limit=100")).json.actions.find((a: { id: string }) => a.id === pending[0].id);
    expect([changed?.lane, changed?.priority]).toEqual(["later", "low"]);
    await page
      .locator(`#${pending[1].id}`)
      .getByRole("button", { name: /^Dismiss/ })
      .click();
    await page.waitForURL(/done=dismissed/);
    expect((await rest("/api/mcp/actions?status=dismissed&limit=100")).json.actions.map((a: { id: string }) => a.id)).toContain(
      pending[1].id,
    );

    // A suggestion becomes an action: source web, its agent named in the description.
    await page.goto(`${s.url}/suggestions?agent=sales`);
    const suggestion = (await rest("/api/mcp/suggestions?agent=sales")).json.suggestions[0];
    await page
      .locator(".suggestion", { hasText: suggestion.title })
      .getByRole("button", { name: /^Make it an action/ })
      .click();
    await page.waitForURL(`${s.url}/suggestions?agent=sales&done=acted`);
    const made = (await rest("/api/mcp/actions?source=web&limit=100")).json.actions.find(
      (a: { title: string }) => a.title === suggestion.title,
    );
    expect(made?.priority).toBe(suggestion.priority);
    expect(made?.description).toContain("Suggested by the Sales agent (sales).");

    // "Based on" links to the evidence; Dismiss (with a reason) is remembered (src/docs/notes/model.md).
    await s.db.execute(
      suggestionInsertStatement({
        id: "sug_e2e_based_on",
        orgId: s.org.id,
        agentId: "sales",
        runId: null,
        title: "Match Acme's price cut",
        detail: "",
        priority: "high",
        createdAt: s.clock.now(),
        evidence: [{ kind: "feed_item", ref: "guid-1", title: "Acme cuts prices by 20%", url: "https://news.example.com/acme" }],
      }),
    );
    await page.goto(`${s.url}/suggestions?agent=sales`);
    const based = page.locator("#sug_e2e_based_on");
    expect(await based.getByRole("link", { name: "Acme cuts prices by 20%" }).getAttribute("href")).toBe("https://news.example.com/acme");
    await based.getByText("Dismiss…").click(); // the reason box opens on Dismiss
    await based.getByLabel(/^Why dismiss/).fill("We compete on service.");
    await based.getByRole("button", { name: /^Dismiss/ }).click();
    await page.waitForURL(`${s.url}/suggestions?agent=sales&done=suggestion_dismissed&undo=sug_e2e_based_on&was=open`);
    expect(await page.locator("#sug_e2e_based_on").count()).toBe(0);
    expect((await rest("/api/mcp/suggestions?status=dismissed")).json.suggestions).toEqual([
      expect.objectContaining({ id: "sug_e2e_based_on", reason: "We compete on service." }),
    ]);

    // An insight, a handoff, a contact.
    await page.goto(`${s.url}/feed`);
    await page.getByLabel("Title").fill("Churn doubled among annual plans");
    await page.getByLabel("Impact").selectOption("high");
    await page.getByRole("button", { name: "Post insight" }).click();
    await page.waitForURL(`${s.url}/feed?done=posted`);
    await expect(page.locator(".insight-high .action-title").first().textContent()).resolves.toBe("Churn doubled among annual plans");

    await page.goto(`${s.url}/handoffs`);
    await page.getByLabel("Title").fill("Research the churn spike");
    await page.getByLabel("To agent").selectOption("research");
    await page.getByRole("button", { name: "Create handoff" }).click();
    await page.waitForURL(`${s.url}/handoffs?done=created`);
    const started = (await rest("/api/agents/research/runs", { method: "POST" })).json;
    expect(started.context.handoffs.map((h: { title: string }) => h.title)).toContain("Research the churn spike");
    expect(started.context.insights.map((i: { title: string }) => i.title)).toContain("Churn doubled among annual plans");

    await page.goto(`${s.url}/contacts`);
    await page.getByLabel("Name", { exact: true }).fill("Grace Hopper");
    await page.getByLabel("Email (optional)").fill("grace@navy.example");
    await page.getByLabel("Company (optional)").fill("US Navy");
    await page.getByRole("button", { name: "Save contact" }).click();
    await page.waitForURL(`${s.url}/contacts?done=created`);
    const grace = (await rest("/api/mcp/contacts?q=grace@navy")).json.contacts;
    expect(grace.map((c: { name: string; company: string }) => [c.name, c.company])).toEqual([["Grace Hopper", "US Navy"]]);

    // A refused form keeps what was typed and names the field; nothing is stored.
    await page.getByLabel("Name", { exact: true }).fill("Nobody");
    await page.getByLabel("Email (optional)").evaluate((el) => el.setAttribute("type", "text"));
    await page.getByLabel("Email (optional)").fill("not an email");
    await page.getByRole("button", { name: "Save contact" }).click();
    await expect(page.locator("#ct-email-error").textContent()).resolves.toBe("Must be a valid email address.");
    await expect(page.getByLabel("Name", { exact: true }).inputValue()).resolves.toBe("Nobody");
    await auditAndShoot(page, "contacts-error");
    expect((await rest("/api/mcp/contacts?q=nobody")).json.contacts).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("owners", () => {
  it("see getting started on an empty organization, load demo data, create a user with a one-time link and edit a schedule", async () => {
    const empty = await startServer();
    try {
      const owner = await empty.createUser("lite", undefined, "owner");
      const { context, problems } = await watchedContext(browser, empty.url);
      const page = await context.newPage();
      await page.goto(`${empty.url}/sign-in`);
      await page.getByLabel("Email").fill(owner.email);
      await page.getByLabel("Password").fill(TEST_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${empty.url}/dashboard`);
      await expect(page.getByLabel("This server's MCP URL").inputValue()).resolves.toBe(`${empty.url}/mcp`);
      await expect(page.locator("#setup-claude").textContent()).resolves.toBe(`claude mcp add --transport http crew ${empty.url}/mcp`);
      await expect(page.locator("#setup-vscode").textContent()).resolves.toContain(`"url": "${empty.url}/mcp"`);
      await expect(page.locator("#setup-cursor").textContent()).resolves.toContain(`"url": "${empty.url}/mcp"`);
      await expect(page.locator("#setup-curl").textContent()).resolves.toContain(`${empty.url}/api/mcp/agents`);
      await auditAndShoot(page, "dashboard-getting-started");
      // Every empty page says what to do next.
      for (const [path, text] of [
        ["/actions", "The queue is empty."],
        ["/suggestions", "The agents have no open suggestion yet."],
        ["/contacts", "No contacts yet."],
        ["/feed", "No insights yet."],
        ["/handoffs", "Nothing is queued."],
        ["/standup", "No standup has been made yet"],
        ["/profile", "The Company DNA agent has not written a profile yet"],
        ["/agents/sales", "This agent has not run yet."],
      ] as const) {
        await page.goto(`${empty.url}${path}`);
        await expect(page.locator(".empty").first().textContent()).resolves.toContain(text);
        await auditAndShoot(page, `empty-${path.slice(1).replace("/", "-")}`);
      }

      await page.goto(`${empty.url}/dashboard`);
      await page.getByRole("button", { name: "Load demo data" }).click();
      await page.waitForURL(`${empty.url}/dashboard?done=demo`);
      await expect(page.locator(".getting-started").count()).resolves.toBe(0);
      await expect(page.locator("#today-h + .headline").textContent()).resolves.not.toContain("No briefing yet");

      await page.goto(`${empty.url}/settings/users`);
      await auditAndShoot(page, "settings-users");
      await page.getByLabel("Name", { exact: true }).fill("Mo Member");
      await page.getByLabel("Email", { exact: true }).fill("mo@example.com");
      await page.getByRole("button", { name: "Create user and sign-in link" }).click();
      const link = await page.getByLabel("One-time sign-in link").inputValue();
      expect(link).toMatch(new RegExp(`^${empty.url}/welcome\\?token=`));
      await auditAndShoot(page, "settings-users-created");

      await page.goto(`${empty.url}/agents/sales`);
      await page.getByRole("textbox", { name: /^Schedule/ }).fill("0 9 * * 1-5");
      await page.getByRole("button", { name: "Save schedule" }).click();
      await page.waitForURL(`${empty.url}/agents/sales?done=scheduled`);
      await expect(page.locator("#sched-h + p").textContent()).resolves.toContain("Monday to Friday at 09:00");
      // A built-in agent runs at once from its page.
      await page.goto(`${empty.url}/agents/pulse`);
      const before = await page.locator("#runs-h + .table-wrap tbody tr").count();
      await page.getByRole("button", { name: "Run now" }).click();
      await page.waitForURL(`${empty.url}/agents/pulse?done=ran`);
      await expect(page.locator("#runs-h + .table-wrap tbody tr").count()).resolves.toBe(before + 1);
      await auditAndShoot(page, "agent-owner");

      // The new person follows the link in a fresh browser and chooses a password.
      const theirs = await watchedContext(browser, empty.url);
      const welcome = await theirs.context.newPage();
      await welcome.goto(link);
      await auditAndShoot(welcome, "welcome");
      await welcome.getByLabel(/^Password/).fill("their own long password");
      await welcome.getByRole("button", { name: "Set password and sign in" }).click();
      await welcome.waitForURL(`${empty.url}/dashboard`);
      expect(theirs.problems).toEqual([]);
      await theirs.context.close();
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await empty.close();
    }
  });
});

describe("snoozing on /actions", () => {
  it("hides a snoozed action from the open queue, lists it under Snoozed, and shows it again once the time has passed", async () => {
    const { context, problems } = await watchedContext(browser, s.url);
    const page = await context.newPage();
    await signIn(page, memberEmail);
    const { actionId } = (
      await rest("/api/mcp/actions", { method: "POST", body: { title: "Chase the signed lease", priority: "critical" } })
    ).json;
    await page.goto(`${s.url}/actions`);
    const item = page.locator(`#${actionId}`);
    await item.locator("summary", { hasText: "Snooze" }).click();
    await item.getByLabel(/^Hide/).selectOption("3");
    await item.getByRole("button", { name: "Snooze “Chase the signed lease” now" }).click();
    await page.waitForURL(/done=snoozed/);
    await expect(page.getByRole("status").textContent()).resolves.toMatch(/^Action snoozed/);
    await expect(page.locator(`#${actionId}`).count()).resolves.toBe(0);
    const stored = (await rest(`/api/mcp/actions/${actionId}`)).json;
    expect(stored.snoozedUntil).toBe(new Date(s.clock.now() + 3 * 24 * 3600_000).toISOString());
    expect((await rest("/api/mcp/actions?view=open&limit=100")).json.actions.map((a: { id: string }) => a.id)).not.toContain(actionId);
    await page.getByRole("link", { name: "Snoozed" }).click();
    await expect(page.locator(`#${actionId} .snoozed`).textContent()).resolves.toMatch(/^snoozed until /);

    // Three days and a minute later (the server's injected clock) it is open work again.
    s.clock.advance(3 * 24 * 3600_000 + 60_000);
    await page.goto(`${s.url}/actions`);
    await expect(page.locator(`#${actionId}`).count()).resolves.toBe(1);
    await expect(page.locator(`#${actionId} .snoozed`).count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("with JavaScript off", () => {
  it("adds an action, starts it, dismisses it, posts an insight and saves a contact", async () => {
    const { context, problems } = await watchedContext(browser, s.url, { javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, memberEmail);
    await page.goto(`${s.url}/actions`);
    await page.getByLabel("Title").fill("Renew the domain (no JS)");
    await page.getByRole("button", { name: "Add action" }).click();
    await page.waitForURL(`${s.url}/actions?done=added`);
    const added = (await rest("/api/mcp/actions?source=web&limit=100")).json.actions.find(
      (a: { title: string }) => a.title === "Renew the domain (no JS)",
    );
    expect(added?.status).toBe("pending");
    await page
      .locator(`#${added.id}`)
      .getByRole("button", { name: /^Start/ })
      .click();
    await page.waitForURL(/done=in_progress/);
    await page
      .locator(`#${added.id}`)
      .getByRole("button", { name: /^Dismiss/ })
      .click();
    await page.waitForURL(/done=dismissed/);
    const after = (await rest("/api/mcp/actions?source=web&limit=100")).json.actions.find((a: { id: string }) => a.id === added.id);
    expect(after?.status).toBe("dismissed");

    await page.goto(`${s.url}/feed`);
    await page.getByLabel("Title").fill("Posted without JavaScript");
    await page.getByRole("button", { name: "Post insight" }).click();
    await page.waitForURL(`${s.url}/feed?done=posted`);
    await expect(page.locator(".insight .action-title").first().textContent()).resolves.toBe("Posted without JavaScript");

    await page.goto(`${s.url}/contacts`);
    await page.getByLabel("Name", { exact: true }).fill("Nojs Person");
    await page.getByRole("button", { name: "Save contact" }).click();
    await page.waitForURL(`${s.url}/contacts?done=created`);
    expect((await rest("/api/mcp/contacts?q=nojs")).json.contacts).toHaveLength(1);
    // The copy buttons stay hidden without JavaScript; the settings menu still opens.
    await page.getByText("Settings", { exact: true }).click();
    await expect(page.getByRole("link", { name: "API keys" }).isVisible()).resolves.toBe(true);
    await expect(page.locator(".menu-who").textContent()).resolves.toContain(memberEmail);
    await auditAndShoot(page, "settings-menu-open");
    expect(problems).toEqual([]);
    await context.close();
  });
});
