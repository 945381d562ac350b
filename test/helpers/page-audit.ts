/**
 * What every page of the web app must hold in a real browser (src/docs/notes/web-app.md), checked inside Chromium:
 * one h1, a label for every field, nothing wider than the screen, the keyboard focus visible; and
 * per context, no console error, script error, CSP violation or request to another host.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";

export const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 375, height: 812 },
];

export async function watchedContext(browser: Browser, origin: string, options: { javaScriptEnabled?: boolean } = {}) {
  const context: BrowserContext = await browser.newContext({ viewport: WIDTHS[0], ...options });
  context.setDefaultTimeout(10_000);
  const problems: string[] = [];
  // Without JavaScript the init script cannot run: CSP violations then show as console errors.
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  context.on("page", (page: Page) => {
    page.on("pageerror", (e) => problems.push(`script error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console: ${m.text()}`);
    });
    page.on("requestfailed", (r) => {
      if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`);
    });
    page.on("request", (r) => {
      if (new URL(r.url()).origin !== origin) problems.push(`foreign request: ${r.url()}`);
    });
    page.on("response", (r) => {
      if (r.status() >= 400 && r.request().resourceType() !== "document") problems.push(`${r.status()}: ${r.url()}`);
    });
  });
  return { context, problems };
}

export interface PageAudit {
  h1: number;
  unlabelled: string[];
  overflow: string[];
}

/** Runs inside the page. */
export function auditInPage(): PageAudit {
  const fields = [...document.querySelectorAll("input:not([type=hidden]), select, textarea")] as HTMLInputElement[];
  const unlabelled = fields
    .filter((f) => (f.labels?.length ?? 0) === 0 && !f.getAttribute("aria-label") && !f.getAttribute("aria-labelledby"))
    .map((f) => f.outerHTML.slice(0, 80));
  const overflow: string[] = [];
  if (document.documentElement.scrollWidth > window.innerWidth) overflow.push(`page is ${document.documentElement.scrollWidth}px wide`);
  for (const el of document.querySelectorAll(".table-wrap, .card, main, .action-item, .empty")) {
    if (el.scrollWidth > el.clientWidth + 1) overflow.push(`${el.className || el.tagName} scrolls ${el.scrollWidth - el.clientWidth}px`);
  }
  return { h1: document.querySelectorAll("h1").length, unlabelled, overflow };
}

/** Tabs through the first `steps` focusable elements: each shows an outline of at least 2 px. */
export async function focusIsVisible(page: Page, steps = 8): Promise<string[]> {
  const bad: string[] = [];
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < steps; i++) {
    await page.keyboard.press("Tab");
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return {
        what: `${el.tagName} ${el.textContent?.trim().slice(0, 30)}`,
        outline: style.outlineStyle,
        width: Number.parseFloat(style.outlineWidth),
      };
    });
    if (focus.what.startsWith("BODY")) break;
    if (focus.outline === "none" || focus.width < 2) bad.push(focus.what);
  }
  return bad;
}
