/**
 * One-click action links (src/docs/notes/delivery.md): GET changes nothing, POST acts once as the link's user with
 * source "web"; a second POST, an expired link (ManualClock), an unknown token and a deactivated
 * user's link get a page and change nothing. Preferences over GET/PATCH /api/me/notifications
 * (session + CSRF) and the settings page; `crew notify test --email` against a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_LINK_MS, newMailLink } from "../../src/integrations/notify/links.ts";
import { findAction } from "../../src/store/actions/actions.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { databaseEnv } from "../helpers/database.ts";
import { seedActions, snapshot } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { type MailReceiver, startMailReceiver } from "../helpers/smtp.ts";
import { Browserish, signedIn } from "../web/client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

async function linkFor(userId: string, actionId: string, verb: "approve" | "done" | "dismiss") {
  const link = newMailLink(s.url, { purpose: "action", userId, actionId, verb }, s.clock.now());
  await s.db.execute(link.statement);
  return link.url.slice(s.url.length);
}

describe("one-click action links", () => {
  it("GET shows the action and a confirm button, and changes nothing (mail scanners prefetch)", async () => {
    const user = await s.createUser();
    const [action] = await seedActions(s, user.id, [{ title: "Send the renewal quote" }]);
    const path = await linkFor(user.id, action!.id, "approve");
    const before = await snapshot(s.db);
    const tab = new Browserish(s.url);
    for (let i = 0; i < 2; i++) {
      const page = await tab.request(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain("Send the renewal quote");
      expect(page.text).toMatch(new RegExp(`<form method="post" action="${path}">`));
    }
    expect(await snapshot(s.db)).toEqual(before);
  });

  it("POST acts once, as the link's user, recorded as a web change; a second POST changes nothing", async () => {
    const user = await s.createUser();
    const [action] = await seedActions(s, user.id, [{ title: "Approve the invoice" }]);
    const path = await linkFor(user.id, action!.id, "approve");
    const tab = new Browserish(s.url);
    const first = await tab.request(path, { method: "POST" });
    expect(first.status).toBe(200);
    expect(first.text).toContain("Action approved");
    expect((await findAction(s.db, s.org.id, action!.id))?.status).toBe("approved");

    await s.db.run("UPDATE actions SET status = 'pending' WHERE id = ?", [action!.id]);
    const before = await snapshot(s.db);
    const second = await tab.request(path, { method: "POST" });
    expect(second.status).toBe(410);
    expect(second.text).toContain("Link already used");
    expect(await snapshot(s.db)).toEqual(before);
  });

  it("refuses a POST from another site (the button is a same-origin form)", async () => {
    const user = await s.createUser();
    const [action] = await seedActions(s, user.id, [{ title: "Cross-site" }]);
    const path = await linkFor(user.id, action!.id, "dismiss");
    const res = await new Browserish(s.url).request(path, { method: "POST", origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect((await findAction(s.db, s.org.id, action!.id))?.status).toBe("pending");
  });

  it("expires after 72 hours", async () => {
    const user = await s.createUser();
    const [action] = await seedActions(s, user.id, [{ title: "Old mail" }]);
    const path = await linkFor(user.id, action!.id, "done");
    s.clock.advance(ACTION_LINK_MS);
    const before = await snapshot(s.db);
    const tab = new Browserish(s.url);
    for (const method of ["GET", "POST"]) {
      const res = await tab.request(path, { method });
      expect(res.status).toBe(410);
      expect(res.text).toContain("Link expired");
    }
    expect(await snapshot(s.db)).toEqual(before);
  });

  it("an unknown token and a deactivated user's link get a page and change nothing", async () => {
    const user = await s.createUser();
    const [action] = await seedActions(s, user.id, [{ title: "Left the company" }]);
    const path = await linkFor(user.id, action!.id, "done");
    await s.db.run("UPDATE users SET deactivated_at = ? WHERE id = ?", [s.clock.now(), user.id]);
    const before = await snapshot(s.db);
    const tab = new Browserish(s.url);
    for (const p of [path, "/a/not-a-token", `/a/${"a".repeat(52)}`]) {
      for (const method of ["GET", "POST"]) {
        const res = await tab.request(p, { method });
        expect(res.status).toBe(404);
        expect(res.text).toContain("Link not valid");
      }
    }
    expect(await snapshot(s.db)).toEqual(before);
  });
});

describe("notification preferences", () => {
  it("GET and PATCH /api/me/notifications with the session; defaults mail on, Slack off", async () => {
    const { tab } = await signedIn(s);
    expect((await tab.request("/api/me/notifications")).json).toEqual({ briefingEmail: true, briefingSlack: false });
    const changed = await tab.request("/api/me/notifications", { method: "PATCH", json: { briefingSlack: true } });
    expect(changed.status).toBe(200);
    expect(changed.json).toEqual({ briefingEmail: true, briefingSlack: true });
    const off = await tab.request("/api/me/notifications", { method: "PATCH", json: { briefingEmail: false } });
    expect(off.json).toEqual({ briefingEmail: false, briefingSlack: true });
  });

  it("refuses bad input with 400 and a cross-site PATCH with 403, storing nothing", async () => {
    const { tab } = await signedIn(s);
    const before = await snapshot(s.db, ["quota_windows", "sessions"]);
    const bad = await tab.request("/api/me/notifications", { method: "PATCH", json: { briefingEmail: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("invalid_request");
    expect((await tab.request("/api/me/notifications", { method: "PATCH", json: {} })).status).toBe(400);
    const forged = await tab.request("/api/me/notifications", {
      method: "PATCH",
      json: { briefingEmail: false },
      origin: "https://evil.example",
    });
    expect(forged.status).toBe(403);
    expect(await snapshot(s.db, ["quota_windows", "sessions"])).toEqual(before);
    expect((await new Browserish(s.url).request("/api/me/notifications")).status).toBe(401);
  });

  it("the settings page saves both preferences; members see no delivery log", async () => {
    const { tab } = await signedIn(s);
    const csrf = await tab.csrfToken("/settings/notifications");
    const saved = await tab.request("/settings/notifications", { form: { csrf, briefingSlack: "on" } });
    expect(saved.status).toBe(303);
    expect((await tab.request("/api/me/notifications")).json).toEqual({ briefingEmail: false, briefingSlack: true });
    const page = await tab.request("/settings/notifications?done=saved");
    expect(page.text).toContain("Preferences saved.");
    expect(page.text).not.toContain("Delivery log");
  });
});

describe("crew notify test", () => {
  let smtp: MailReceiver;
  beforeAll(async () => {
    smtp = await startMailReceiver();
  });
  afterAll(() => smtp.close());

  it("sends one test mail through SMTP_URL", async () => {
    const env = { ...databaseEnv(s.config.databaseUrl), SMTP_URL: smtp.url, MAIL_FROM: "crew@example.com", LOG_LEVEL: "silent" };
    const result = await runCliInProcess(["notify", "test", "--email", "ops@example.com"], env);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain("Test mail sent to ops@example.com");
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]?.subject).toBe("Crew test mail");
  });

  it("says so when mail is not configured, or the address is missing", async () => {
    const env = { ...databaseEnv(s.config.databaseUrl), LOG_LEVEL: "silent" };
    const none = await runCliInProcess(["notify", "test", "--email", "ops@example.com"], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("SMTP_URL");
    expect((await runCliInProcess(["notify", "test"], env)).code).toBe(2);
  });
});
