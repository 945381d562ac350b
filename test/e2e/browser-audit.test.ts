/**
 * An audit of every page a person sees, in headless Chromium (one launch for the file): at 1280
 * and 375 px each page has a language, a title, one h1, one main landmark, headings that do not
 * skip a level, a label for every field and a name for every button, nothing wider than the
 * screen (no table scrolling sideways, long names included), and no console error, CSP violation
 * or failed request. Then keyboard use, and the whole key life cycle with JavaScript turned off.
 */
import { mkdir } from "node:fs/promises";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSetupLink } from "../../src/auth/setup.ts";
import { SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW } from "../../src/auth/sign-in.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { recordSignInFailure } from "../../src/store/auth/sign-in-failures.ts";
import { ARTIFACTS_DIR, CHROMIUM_ARGS, CHROMIUM_PATH } from "../helpers/browser.ts";
import { connect, exchangeCode, HttpBrowser } from "../helpers/oauth.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { insertAlert, insertPastRuns } from "../helpers/web.ts";

let s: TestServer;
let browser: Browser;

const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 375, height: 812 },
];
const LONG_NAME = `${"Unbroken".repeat(7)} and then ordinary words`; // 80 of the 100 characters allowed
const LONG_APP = "An Extraordinarily Long Application Name That Someone Registered To See What Happens";

beforeAll(async () => {
  s = await startServer();
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/**
 * Everything a page should not do, collected per context: console errors (CSP violations are
 * reported there too, and by the listener below), script errors, failed or refused subresources.
 * A document answered with 4xx is expected (a wrong password is a 401 page), so only other
 * resources count; aborted requests are navigations that moved on.
 */
async function watchedContext(origin: string, options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext({ viewport: WIDTHS[0], ...options });
  context.setDefaultTimeout(8000);
  const problems: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  const watch = (page: Page) => {
    page.on("pageerror", (e) => problems.push(`script error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console: ${m.text()}`);
    });
    page.on("requestfailed", (r) => {
      if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`);
    });
    page.on("response", (r) => {
      if (r.status() >= 400 && r.request().resourceType() !== "document") problems.push(`${r.status()}: ${r.url()}`);
      if (new URL(r.url()).origin !== origin) problems.push(`foreign request: ${r.url()}`);
    });
  };
  context.on("page", watch);
  return { context, problems };
}

interface Audit {
  lang: string;
  title: string;
  h1: number;
  main: number;
  skippedHeadings: string[];
  unlabelled: string[];
  unnamed: string[];
  overflow: string[];
}

/** The page's own checks, run inside it. */
function auditInPage(): Audit {
  // Text content, not innerText: a closed <details> hides its button without taking its name.
  const name = (el: Element) =>
    (el.getAttribute("aria-label") ?? el.textContent ?? "").trim() || (el.getAttribute("aria-labelledby") ? "labelled" : "");
  const levels = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => Number(h.tagName[1]));
  const skippedHeadings = levels.flatMap((level, i) =>
    i > 0 && level > (levels[i - 1] ?? 0) + 1 ? [`h${levels[i - 1]} → h${level}`] : [],
  );
  const fields = [...document.querySelectorAll("input:not([type=hidden]), select, textarea")] as HTMLInputElement[];
  const unlabelled = fields
    .filter((f) => (f.labels?.length ?? 0) === 0 && !f.getAttribute("aria-label") && !f.getAttribute("aria-labelledby"))
    .map((f) => f.outerHTML.slice(0, 80));
  const controls = [...document.querySelectorAll("button, summary, a[href]")];
  const unnamed = controls.filter((b) => !name(b) && !b.querySelector("img[alt]")).map((b) => b.outerHTML.slice(0, 80));
  const overflow: string[] = [];
  if (document.documentElement.scrollWidth > window.innerWidth) overflow.push(`page is ${document.documentElement.scrollWidth}px wide`);
  for (const el of document.querySelectorAll(".table-wrap, .card, main, pre")) {
    // A <pre> may scroll (code); anything else scrolling sideways hides content.
    if (el.tagName !== "PRE" && el.scrollWidth > el.clientWidth + 1)
      overflow.push(`${el.className || el.tagName} scrolls ${el.scrollWidth - el.clientWidth}px`);
  }
  return {
    lang: document.documentElement.lang,
    title: document.title,
    h1: document.querySelectorAll("h1").length,
    main: document.querySelectorAll("main").length,
    skippedHeadings,
    unlabelled,
    unnamed,
    overflow,
  };
}

/** The audit at both widths; `shot` names the screenshots (viewport only: the top is what is judged). */
async function audit(page: Page, shot?: string): Promise<void> {
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    const found = await page.evaluate(auditInPage);
    const where = `${new URL(page.url()).pathname} at ${size.width}px`;
    expect(found.lang, where).toBe("en");
    expect(found.title, where).toMatch(/\S/);
    expect(found.h1, where).toBe(1);
    expect(found.main, where).toBe(1);
    expect(found.skippedHeadings, where).toEqual([]);
    expect(found.unlabelled, where).toEqual([]);
    expect(found.unnamed, where).toEqual([]);
    expect(found.overflow, where).toEqual([]);
    if (shot) await page.screenshot({ path: `${ARTIFACTS_DIR}/audit-${shot}-${size.width}.png` });
  }
  await page.setViewportSize(WIDTHS[0]!);
}

async function signIn(page: Page, email: string, password = TEST_PASSWORD): Promise<void> {
  await page.goto(`${s.url}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Runs in every health state, one 74 hours old, and an alert. */
async function seedRuns(): Promise<void> {
  await insertPastRuns(
    s,
    [
      { agent: 0, status: "ok", hoursAgo: 2, summary: "Summary 0" },
      { agent: 1, status: "error", hoursAgo: 1, summary: "Summary 1" },
      { agent: 2, status: "ok", hoursAgo: 30, summary: "Summary 2" },
      { agent: 3, status: "ok", hoursAgo: 74, summary: "Summary 3" },
    ],
    "run_audit",
  );
  await insertAlert(s, "alr_audit", "Calendar credentials expired: reconnect the calendar.", 1);
}

describe("every page in the browser", () => {
  let context: BrowserContext;
  let problems: string[];
  beforeAll(async () => {
    ({ context, problems } = await watchedContext(s.url));
  });
  afterAll(() => context?.close());

  it("passes the audit at 1280 and 375 px with long names, empty states and every error shown in the page", async () => {
    const owner = await s.createUser("operator");
    await s.db.execute({ sql: "UPDATE users SET name = ? WHERE id = ?", args: [`Olivia ${"Longname".repeat(6)}`, owner.id] });
    const lite = await s.createUser("lite");
    await seedRuns();
    const page = await context.newPage();

    // Signed out: the sign-in page, a wrong password, then throttled.
    await page.goto(`${s.url}/sign-in`);
    await audit(page, "sign-in");
    await signIn(page, owner.email, "wrong password");
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The email or password is wrong.");
    await audit(page);
    // Ten failures recorded (as ten wrong passwords would, without the ten slow hashes): the next is refused.
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) await recordSignInFailure(s.db, "nobody@example.com", s.clock.now(), SIGN_IN_WINDOW);
    await signIn(page, "nobody@example.com", "wrong password");
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/^Too many failed sign-ins for this email\. Try again in/);
    await audit(page, "sign-in-throttled");

    // Empty states of a new account.
    await signIn(page, owner.email);
    await page.waitForURL(`${s.url}/dashboard`);
    await audit(page, "dashboard");
    await page.goto(`${s.url}/settings/keys`);
    await page.getByText("No active keys.").waitFor();
    await audit(page);
    await page.goto(`${s.url}/connected-apps`);
    await page.getByText("No applications are connected.").waitFor();
    await audit(page);

    // The form's own errors: no name (the browser's check is bypassed), no scope.
    await page.goto(`${s.url}/settings/keys`);
    await page.locator("#key-name").evaluate((el) => el.removeAttribute("required"));
    await page.getByLabel("read", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText("Give the key a name, so you can tell it apart later.").waitFor();
    await page.getByText("Choose at least one scope.").waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("key-name");
    await audit(page, "keys-errors");

    // A key with a long name: shown once, listed, and its revoke step opened.
    await page.getByLabel("Name").fill(LONG_NAME);
    await page.getByLabel("agents", { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByLabel("New API key").inputValue()).resolves.toMatch(/^crew_/);
    await audit(page, "key-created");
    await page.getByText(`Revoke… “${LONG_NAME}”`).click();
    await page.getByRole("button", { name: `Revoke key “${LONG_NAME}”` }).waitFor();
    await audit(page, "key-revoke-confirm");

    // Connected applications, one with a long name.
    for (const name of ["Claude", LONG_APP]) {
      const http = new HttpBrowser(s.url);
      await http.signIn(owner.email);
      const c = await connect(s.url, owner.email, {
        browser: http,
        register: { client_name: name, redirect_uris: ["https://app.example/cb"] },
      });
      expect((await exchangeCode(s.url, c)).status).toBe(200);
    }
    await page.goto(`${s.url}/connected-apps`);
    await page.getByText(`Revoke… “${LONG_APP}”`).click();
    await audit(page, "connected-apps");
    await page.getByRole("button", { name: `Revoke “${LONG_APP}”` }).click();
    await page.waitForURL(`${s.url}/connected-apps?revoked=1`);
    await expect(page.getByRole("status").textContent()).resolves.toBe("Application disconnected.");
    expect(await page.locator("tbody tr").count()).toBe(1);

    // A plan without API access.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${s.url}/sign-in`);
    await signIn(page, lite.email);
    await page.waitForURL(`${s.url}/dashboard`);
    await page.goto(`${s.url}/settings/keys`);
    await page.getByText("has no API access, so it cannot have keys").waitFor();
    await audit(page, "keys-lite");

    // The reference and the error codes.
    await page.goto(`${s.url}/docs`);
    await audit(page, "docs");
    await page.goto(`${s.url}/docs/errors`);
    await audit(page, "docs-errors");
    expect(problems).toEqual([]);
  });

  it("every link of /docs and /docs/errors leads somewhere: anchors exist, pages answer 200", async () => {
    const page = await context.newPage();
    for (const path of ["/docs", "/docs/errors"]) {
      await page.goto(s.url + path);
      const links = await page.evaluate(() => [
        ...new Set([...document.querySelectorAll("a[href]")].map((a) => (a as HTMLAnchorElement).href)),
      ]);
      expect(links.length).toBeGreaterThan(10);
      for (const link of links) {
        const url = new URL(link);
        expect(url.origin, link).toBe(s.url);
        const res = await fetch(url);
        expect(res.status, link).toBe(200);
        const html = await res.text();
        if (url.hash) expect(html, link).toContain(`id="${decodeURIComponent(url.hash.slice(1))}"`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("can be used from the keyboard alone, with the focus always visible", async () => {
    const user = await s.createUser("pro");
    await s.createKey(user, ["read"], "Keyboard key");
    await context.clearCookies(); // whoever signed in before in this context
    const page = await context.newPage();
    await signIn(page, user.email);
    await page.waitForURL(`${s.url}/dashboard`);
    await page.goto(`${s.url}/settings/keys`);
    const seen: string[] = [];
    // Until the revoke step's disclosure (the Settings menu in the header is a <summary> too).
    let onRevoke = false;
    for (let i = 0; i < 40 && !onRevoke; i++) {
      await page.keyboard.press("Tab");
      const focus = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return {
          tag: el.tagName,
          text: el.innerText?.trim() ?? "",
          outline: style.outlineStyle,
          width: Number.parseFloat(style.outlineWidth),
        };
      });
      expect(focus.outline, `${focus.tag} ${focus.text}`).not.toBe("none");
      expect(focus.width, `${focus.tag} ${focus.text}`).toBeGreaterThanOrEqual(2);
      seen.push(focus.tag);
      onRevoke = focus.tag === "SUMMARY" && focus.text.startsWith("Revoke");
    }
    // Skip link first, then the header, the form and the revoke step.
    expect(seen[0]).toBe("A");
    expect(seen).toEqual(expect.arrayContaining(["BUTTON", "INPUT", "SUMMARY"]));
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Revoke key “Keyboard key”");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${s.url}/settings/keys?revoked=1`);
    await page.getByText("No active keys.").waitFor();
    expect(problems).toEqual([]);
  });
});

describe("without JavaScript", () => {
  it("sets up, signs in, creates a key (shown once), revokes it and signs out", async () => {
    // Setup needs a deployment without users: a server of its own.
    const fresh = await startServer();
    const { context, problems } = await watchedContext(fresh.url, { javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const link = await ensureSetupLink(fresh.db, fresh.config, fresh.clock.now());
      await page.goto(link!);
      await audit(page, "setup");
      await page.getByRole("button", { name: "Create owner account" }).click();
      await page.getByText("Please correct the fields below.").waitFor();
      await audit(page, "setup-errors");
      await page.getByLabel("Your name").fill("Nora No-Script");
      await page.getByLabel("Email").fill("nora@example.com");
      await page.getByLabel(/Password/).fill("a long enough password");
      await page.getByRole("button", { name: "Create owner account" }).click();
      await page.waitForURL(`${fresh.url}/dashboard`);

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(`${fresh.url}/sign-in`);
      await page.getByLabel("Email").fill("nora@example.com");
      await page.getByLabel("Password").fill("a long enough password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${fresh.url}/dashboard`);

      await page.getByRole("link", { name: "API keys" }).first().click();
      await page.getByLabel("Name").fill("No-script key");
      await page.getByRole("button", { name: "Create key" }).click();
      const key = await page.getByLabel("New API key").inputValue();
      expect(key).toMatch(/^crew_[a-z2-7]{52,}$/);
      // The copy button needs the script: without it the field is there to select by hand.
      expect(await page.locator("button[data-copy]").isHidden()).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS_DIR}/audit-nojs-key-created.png` });
      expect((await api(fresh.url, key)("/api/mcp/agents")).status).toBe(200);

      await page.getByText("Revoke… “No-script key”").click();
      await page.getByRole("button", { name: "Revoke key “No-script key”" }).click();
      await page.waitForURL(`${fresh.url}/settings/keys?revoked=1`);
      await page.getByText("No active keys.").waitFor();
      expect((await api(fresh.url, key)("/api/mcp/agents")).status).toBe(401);
      const hash = sha256Hex(key);
      expect(await page.content()).not.toContain(hash.slice(0, 8));

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(`${fresh.url}/sign-in`);
      await page.goto(`${fresh.url}/settings/keys`);
      await page.waitForURL(`${fresh.url}/sign-in?next=%2Fsettings%2Fkeys`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await fresh.close();
    }
  });
});
