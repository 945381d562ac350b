/**
 * `npm run screenshots`: the pictures of src/docs/notes/web-app.md, made from the running web app
 * so the docs stay true. A throwaway server (a temporary database with the demo content, an owner
 * signed in) and Debian's Chromium through playwright-core take the dashboard, the briefing and the
 * actions, light and dark, at 1280 and 390 px (the top of each page, as a person first sees it),
 * into src/docs/notes/web-app-{page}-{theme}-{width}.png.
 *
 *   npm run screenshots                 # CHROMIUM=/path/to/chromium to use another browser
 */

import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { chromium } from "playwright-core";
import { createApp } from "../src/app.ts";
import { hashPassword } from "../src/auth/passwords.ts";
import { bootDeps } from "../src/boot.ts";
import { seedDemo } from "../src/demo/seed.ts";
import { silentLogger } from "../src/lib/log.ts";
import { createUser } from "../src/store/auth/users.ts";
import { ensureDefaultOrgAndAgents } from "../src/store/orgs/orgs.ts";

const NOTES = fileURLToPath(new URL("../src/docs/notes/", import.meta.url));
const PAGES = ["dashboard", "briefing", "actions"] as const;
const THEMES = ["light", "dark"] as const;
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];
const EMAIL = "dana@example.com";
const PASSWORD = "screenshots only, thrown away";

const browserPath = process.env.CHROMIUM ?? (existsSync("/usr/lib/chromium/chromium") ? "/usr/lib/chromium/chromium" : "/usr/bin/chromium");

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "crew-screenshots-"));
  // Bound first, so BASE_URL names the port the browser opens (one public address).
  let app: ReturnType<typeof createApp> | null = null;
  const server = serve({
    fetch: (req) => (app ? app.fetch(req) : new Response("starting", { status: 503 })),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const booted = await bootDeps(
    { DATABASE_URL: `file:${join(dir, "crew.db")}`, BASE_URL: base, LOG_LEVEL: "silent" },
    { log: silentLogger },
  );
  app = createApp(booted.deps);
  const now = Date.now();
  const org = await ensureDefaultOrgAndAgents(booted.db, booted.config.defaultTimeZone, now);
  await createUser(
    booted.db,
    { orgId: org.id, email: EMAIL, name: "Dana", passwordHash: await hashPassword(PASSWORD), plan: "operator", role: "owner" },
    now,
  );
  await seedDemo(booted.db, org, now);

  const browser = await chromium.launch({ executablePath: browserPath, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    for (const theme of THEMES) {
      const context = await browser.newContext({ colorScheme: theme, viewport: WIDTHS[0] });
      const page = await context.newPage();
      await page.goto(`${base}/sign-in`);
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${base}/dashboard`);
      for (const name of PAGES) {
        for (const size of WIDTHS) {
          await page.setViewportSize(size);
          await page.goto(`${base}/${name}`);
          const path = join(NOTES, `web-app-${name}-${theme}-${size.width}.png`);
          await page.screenshot({ path });
          console.log(path);
        }
      }
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
    await booted.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
