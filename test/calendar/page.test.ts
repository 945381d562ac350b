/** The dashboard's Calendar page against a real Radicale: connect, refusals, the alert, disconnect, CSRF. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { type Radicale, startRadicale } from "../helpers/radicale.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { signedIn } from "../web/client.ts";

let dav: Radicale;
let s: TestServer;

beforeAll(async () => {
  [dav, s] = await Promise.all([startRadicale({ erin: "erin-pw", finn: "finn-pw" }), startServer()]);
  await dav.makeCalendar("erin", "erin-pw", "home", "Home");
  await dav.makeCalendar("finn", "finn-pw", "home", "Finn's");
});
afterAll(async () => {
  await s?.close();
  await dav?.stop();
});

describe("/settings/calendar", () => {
  it("sends signed-out visitors to sign in, and is in the navigation", async () => {
    const { tab } = await signedIn(s, "operator");
    const out = await fetch(`${s.url}/settings/calendar`, { redirect: "manual" });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/sign-in?next=%2Fsettings%2Fcalendar");
    const page = await tab.request("/settings/calendar");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.text).toContain('<a href="/settings/calendar" aria-current="page">Calendar</a>');
    expect(page.text).toContain("No calendar connected.");
    expect(page.text).toContain('<label for="cal-password">Password</label>');
    expect((await tab.request("/dashboard")).text).toContain('<a href="/settings/calendar">Calendar</a>');
  });

  it("says which field is wrong when the server refuses, keeps what was typed but the password, and stores nothing", async () => {
    const { tab } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken("/settings/calendar");
    const wrong = await tab.request("/settings/calendar", { form: { csrf, url: dav.url, username: "erin", password: "wrong-secret" } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("The calendar was not connected.");
    expect(wrong.text).toMatch(
      /<p class="field-error" id="cal-password-error">The calendar server at [^<]+ rejected the username and password \(HTTP 401\)\.<\/p>/,
    );
    expect(wrong.text).toContain(`value="${dav.url}"`);
    expect(wrong.text).toContain('value="erin"');
    expect(wrong.text).not.toContain("wrong-secret");
    expect(wrong.text).toContain("No calendar connected.");

    const invalid = await tab.request("/settings/calendar", { form: { csrf, url: "not a url", username: "", password: "" } });
    expect(invalid.status).toBe(400);
    for (const field of ["url", "username", "password"]) expect(invalid.text).toContain(`id="cal-${field}-error"`);
  });

  it("connects, shows the calendar, and disconnects after a confirmation step", async () => {
    const { tab } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken("/settings/calendar");
    const done = await tab.request("/settings/calendar", { form: { csrf, url: dav.url, username: "erin", password: "erin-pw" } });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/settings/calendar?done=connected");
    const page = await tab.request("/settings/calendar?done=connected");
    expect(page.text).toContain("Calendar connected.");
    expect(page.text).toContain("<dt>Calendar</dt><dd>Home</dd>");
    expect(page.text).toContain(`<dd class="mono">${dav.url}</dd>`);
    expect(page.text).toContain("Reconnect or switch calendar");
    expect(page.text).not.toContain("erin-pw");

    const gone = await tab.request("/settings/calendar/disconnect", { form: { csrf } });
    expect(gone.headers.get("location")).toBe("/settings/calendar?done=disconnected");
    const after = await tab.request("/settings/calendar?done=disconnected");
    expect(after.text).toContain("Calendar disconnected.");
    expect(after.text).toContain("No calendar connected.");
  });

  it("refuses forms without this session's CSRF token or from another origin", async () => {
    const { tab, user } = await signedIn(s, "operator");
    const form = { url: dav.url, username: "erin", password: "erin-pw" };
    expect((await tab.request("/settings/calendar", { form })).status).toBe(403);
    const csrf = await tab.csrfToken("/settings/calendar");
    expect((await tab.request("/settings/calendar", { form: { ...form, csrf }, origin: "https://evil.example" })).status).toBe(403);
    expect((await tab.request("/settings/calendar/disconnect", { form: {} })).status).toBe(403);
    const rows = await s.db.execute({ sql: "SELECT 1 FROM integrations WHERE user_id = ?", args: [user.id] });
    expect(rows.rows).toHaveLength(0);
  });

  it("shows the open calendar alert on the dashboard and the Calendar page until a call works again", async () => {
    const { tab, user } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken("/settings/calendar");
    await tab.request("/settings/calendar", { form: { csrf, url: dav.url, username: "finn", password: "finn-pw" } });
    const mcp = await connectHttp(s.url, await s.createKey(user, ["admin"]));
    const findTime = () => mcp.callTool({ name: "crew_find_time", arguments: { durationMinutes: 30 } }) as Promise<CallToolResult>;
    try {
      dav.setPassword("finn", "rotated");
      expect((await findTime()).isError).toBe(true);
      const dashboard = await tab.request("/dashboard");
      expect(dashboard.text).toMatch(/<strong>calendar<\/strong>[\s\S]*rejected the username and password/);
      expect((await tab.request("/settings/calendar")).text).toContain(
        "<strong>The last use failed.</strong> Calendar: The calendar server",
      );

      dav.setPassword("finn", "finn-pw");
      expect((await findTime()).isError).toBeFalsy();
      expect((await tab.request("/dashboard")).text).toContain("No open integration alerts.");
      expect((await tab.request("/settings/calendar")).text).not.toContain("The last use failed.");
    } finally {
      dav.setPassword("finn", "finn-pw");
      await mcp.close();
    }
  });

  it("tells a plan without write access that the tools need another plan", async () => {
    const { tab } = await signedIn(s, "lite");
    const page = await tab.request("/settings/calendar");
    expect(page.text).toContain("does not include the calendar tools");
  });
});

describe("/settings/calendar in headless Chromium", () => {
  it("connects by the labelled fields, puts the focus on the field to correct, and disconnects", async () => {
    const user = await s.createUser("operator");
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${s.url}/settings/calendar`);
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(TEST_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${s.url}/settings/calendar`);

      await page.getByLabel("CalDAV URL").fill(dav.url);
      await page.getByLabel("User name").fill("erin");
      await page.getByLabel("Password").fill("not-erins");
      await page.getByRole("button", { name: "Connect calendar" }).click();
      await page.getByText("The calendar was not connected.").waitFor();
      const password = page.getByLabel("Password");
      expect(await password.getAttribute("aria-invalid")).toBe("true");
      expect(await password.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await page.getByLabel("User name").inputValue()).toBe("erin");
      await browser.screenshot(page, "calendar-refused-1280");

      await password.fill("erin-pw");
      await page.getByRole("button", { name: "Connect calendar" }).click();
      await page.getByText("Calendar connected.").waitFor();
      await browser.screenshot(page, "calendar-connected-1280");
      await page.setViewportSize({ width: 375, height: 800 });
      await browser.screenshot(page, "calendar-connected-375");

      await page.getByText("Disconnect…").click();
      await page.getByRole("button", { name: "Disconnect calendar" }).click();
      await page.getByText("Calendar disconnected.").waitFor();
      expect(await page.getByText("No calendar connected.").isVisible()).toBe(true);
    } finally {
      await browser.close();
    }
  });
});
