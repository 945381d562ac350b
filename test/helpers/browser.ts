// Shared headless Chromium for browser tests: Debian's chromium driven by playwright-core
// (no Playwright browser download). Each launch gets a fresh user-data directory, removed on close.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's wrapper script; the binary behind it starts faster and skips the wrapper's shell warning. */
export const CHROMIUM_PATH = existsSync("/usr/lib/chromium/chromium") ? "/usr/lib/chromium/chromium" : "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Folder for screenshots (git-ignored). */
export const ARTIFACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "artifacts");

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab in the same context (cookies shared). */
  newPage(): Promise<Page>;
  /** Write a PNG (full page unless `fullPage: false`) under test/artifacts/ and return its path. */
  screenshot(page: Page, name: string, options?: { fullPage?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  viewport?: { width: number; height: number };
  /** Grant clipboard-read/-write for this origin (e.g. to test a copy button). */
  clipboardOrigin?: string;
}

/** Launch headless Chromium with a fresh profile; always `close()` it (afterAll). */
export async function launchBrowser(options: LaunchOptions = {}): Promise<TestBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), "crew-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 900 },
  });
  if (options.clipboardOrigin) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: options.clipboardOrigin });
  }
  return {
    context,
    newPage: () => context.newPage(),
    async screenshot(page, name, options = {}) {
      await mkdir(ARTIFACTS_DIR, { recursive: true });
      const path = join(ARTIFACTS_DIR, name.endsWith(".png") ? name : `${name}.png`);
      await page.screenshot({ path, fullPage: options.fullPage ?? true });
      return path;
    },
    async close() {
      await context.close().catch(() => {});
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the sign-in page with the tests' password and waits for the dashboard it lands on. */
export async function signInToDashboard(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
}
