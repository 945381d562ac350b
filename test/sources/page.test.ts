/** The Sources page (/settings/sources): add a mailbox and a feed, refusals per field, delete, owners only, CSRF. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raiseOrgAlert } from "../../src/store/integrations/alerts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { signedIn } from "../web/client.ts";

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

describe("/settings/sources", () => {
  it("sends signed-out visitors to sign in, and is in the navigation", async () => {
    const out = await fetch(`${s.url}/settings/sources`, { redirect: "manual" });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/sign-in?next=%2Fsettings%2Fsources");
    const { tab } = await signedIn(s, "operator", "owner");
    const page = await tab.request("/settings/sources");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/settings/sources" aria-current="page">Sources</a>');
    expect(page.text).toContain("No sources yet");
    expect(page.text).toContain('<label for="imap-password">Password or app password</label>');
  });

  it("refuses bad fields by name, keeps what was typed but the password, and stores nothing", async () => {
    const { tab } = await signedIn(s, "operator", "owner");
    const csrf = await tab.csrfToken("/settings/sources");
    const bad = await tab.request("/settings/sources", {
      form: {
        csrf,
        kind: "imap",
        host: "imaps://mail.example.com",
        port: "99999",
        tls: "on",
        username: "me@example.com",
        password: "pw-never-shown",
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="imap-host-error"');
    expect(bad.text).toContain('id="imap-port-error"');
    expect(bad.text).toContain('value="me@example.com"');
    expect(bad.text).not.toContain("pw-never-shown");
    const feed = await tab.request("/settings/sources", { form: { csrf, kind: "feed", url: "https://example.com/feed.xml" } });
    expect(feed.status).toBe(400);
    expect(feed.text).toContain('<p class="field-error" id="feed-agents-error">Tick at least one agent.</p>');
    expect((await s.db.execute("SELECT COUNT(*) AS n FROM sources")).rows[0]?.n).toBe(0);
  });

  it("adds a mailbox and a feed, lists them without the password, and deletes one", async () => {
    const { tab } = await signedIn(s, "operator", "owner");
    const csrf = await tab.csrfToken("/settings/sources");
    const saved = await tab.request("/settings/sources", {
      form: { csrf, kind: "imap", host: "imap.example.com", tls: "on", username: "me@example.com", password: "pw-never-shown" },
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe("/settings/sources?saved=1");
    const added = await tab.request("/settings/sources", {
      form: { csrf, kind: "feed", url: "https://example.com/feed.xml", agents: ["research", "content"] },
    });
    expect(added.status).toBe(303);
    const page = await tab.request("/settings/sources?saved=1");
    expect(page.text).toContain("Mailbox me@example.com @ imap.example.com");
    expect(page.text).toContain("https://example.com/feed.xml");
    expect(page.text).toContain("Market Research, Content");
    expect(page.text).toContain("Without a source, these agents do not run with a model: corpdev, compliance.");
    expect(page.text).not.toContain("pw-never-shown");
    const id = page.text.match(/name="id" value="(src_[^"]+)"/)?.[1];
    expect(id).toBeTruthy();
    const deleted = await tab.request("/settings/sources/delete", { form: { csrf, id: id ?? "" } });
    expect(deleted.status).toBe(303);
    expect((await s.db.execute("SELECT COUNT(*) AS n FROM sources")).rows[0]?.n).toBe(1);
    expect((await tab.request("/settings/sources/delete", { form: { csrf, id: id ?? "" } })).status).toBe(404);
  });

  it("a failing source's alert is on the dashboard of every member", async () => {
    const message = "Mailbox: The mail server refused the user name and password. Correct it in Settings → Sources.";
    await raiseOrgAlert(s.db, { id: "alr_sources_page", orgId: s.org.id, service: "imap", message }, s.clock.now());
    const { tab } = await signedIn(s, "operator");
    const page = await tab.request("/dashboard");
    expect(page.text).toContain("imap");
    expect(page.text).toContain("Mailbox: The mail server refused the user name and password. Correct it in Settings → Sources.");
  });

  it("refuses a form without the session's CSRF token, and members whatever their plan", async () => {
    const { tab } = await signedIn(s, "operator", "owner");
    const forged = await tab.request("/settings/sources", {
      form: { csrf: "forged", kind: "feed", url: "https://x.example/f", agents: "research" },
    });
    expect(forged.status).toBe(403);
    const { tab: member } = await signedIn(s, "operator", "member");
    const page = await member.request("/settings/sources");
    expect(page.status).toBe(403);
    expect(page.text).toContain("Owners only");
    const csrf = await member.csrfToken("/settings/keys");
    expect(
      (await member.request("/settings/sources", { form: { csrf, kind: "feed", url: "https://x.example/f", agents: "research" } })).status,
    ).toBe(403);
    expect((await member.request("/settings/sources/delete", { form: { csrf, id: "src_anything" } })).status).toBe(403);
    expect((await s.db.execute("SELECT COUNT(*) AS n FROM sources WHERE config LIKE '%x.example%'")).rows[0]?.n).toBe(0);
  });
});
