/**
 * The web app's work pages over plain HTTP (src/docs/notes/web-app.md): roles and owner pages, one-time sign-in
 * links, web writes stored with source "web", REST's twin GET /api/mcp/contacts, and HTML error
 * pages for browsers while API clients keep the JSON envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { htmlErrorPage } from "../../src/http/error-page.ts";
import { getUserByEmail } from "../../src/store/auth/users.ts";
import { migrate, migrations, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { openVersion1Store } from "../helpers/schema-v1.ts";
import { api, startServer, type TestServer, tempDir } from "../helpers/server.ts";
import { Browserish, signedIn } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const HTML = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

describe("HTML error pages", () => {
  it("issue 11 item 14: a browser's 404 is an HTML page with a way back, an API client's stays the JSON envelope", async () => {
    const tab = new Browserish(s.url);
    const page = await tab.request("/no-such-page", { headers: HTML });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.text).toContain("<h1>Page not found</h1>");
    expect(page.text).toContain('href="/dashboard"');
    expect(page.text).toContain(page.headers.get("x-request-id"));

    const json = await tab.request("/no-such-page");
    expect(json.status).toBe(404);
    expect(json.json.error).toBe("not_found");
    // Under /api/ the envelope stays, whatever the Accept header says.
    const apiReply = await tab.request("/api/mcp/nothing-here", { headers: HTML });
    expect(apiReply.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("answers a browser's 405 with a page that keeps Allow, and a 500 with a page that names the request id only", async () => {
    const tab = new Browserish(s.url);
    const wrong = await tab.request("/oauth/authorize", { method: "DELETE", headers: HTML });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("content-type")).toMatch(/^text\/html/);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(wrong.text).toContain("<h1>Not available this way</h1>");
    expect(wrong.text).toContain('href="/dashboard"');

    const envelope = new Response(JSON.stringify({ error: "internal_error", message: "secret detail", request_id: "req_1" }), {
      status: 500,
      headers: { "Content-Type": "application/json", "X-Request-Id": "req_1" },
    });
    const page = await htmlErrorPage(envelope);
    const text = await page.text();
    expect(page.status).toBe(500);
    expect(text).toContain("<h1>Something went wrong</h1>");
    expect(text).toContain("req_1");
    expect(text).not.toContain("secret detail");
    expect(text).toContain('href="/dashboard"');

    const notAllowed = await htmlErrorPage(
      new Response(JSON.stringify({ error: "method_not_allowed", message: "This endpoint accepts GET, HEAD.", request_id: "r" }), {
        status: 405,
        headers: { Allow: "GET, HEAD" },
      }),
    );
    expect(notAllowed.headers.get("allow")).toBe("GET, HEAD");
    expect(await notAllowed.text()).toContain("<h1>Not available this way</h1>");
  });
});

describe("roles", () => {
  it("makes the first user of each organization its owner when a version-1 database is migrated", async () => {
    const tmp = tempDir();
    try {
      const db = await openVersion1Store(`${tmp.dir}/v1.db`);
      await db.execute("INSERT INTO organizations (id, name, time_zone, created_at) VALUES ('org_a', 'A', 'UTC', 0)");
      for (const [id, at] of [
        ["usr_second", 2],
        ["usr_first", 1],
      ] as const) {
        await db.execute({
          sql: "INSERT INTO users (id, org_id, email, name, password_hash, plan, created_at) VALUES (?, 'org_a', ?, 'x', 'h', 'lite', ?)",
          args: [id, `${id}@example.com`, at],
        });
      }
      expect(await migrate(db, readSchema(), migrations)).toBe(SCHEMA_VERSION);
      const roles = await db.execute("SELECT id, role FROM users ORDER BY id");
      expect(roles.rows.map((r) => [r.id, r.role])).toEqual([
        ["usr_first", "owner"],
        ["usr_second", "member"],
      ]);
      db.close();
    } finally {
      tmp.cleanup();
    }
  });

  it("creates users from the CLI as members unless --role owner is given, and refuses another role", async () => {
    const env = { DATABASE_URL: `file:${s.dir}/crew.db`, CREW_SECRET: "test-secret-test-secret-test-secret-00", LOG_LEVEL: "silent" };
    // An owner first: the first user of an organization without an active owner becomes its owner.
    const owner = await runCliInProcess(
      ["user", "create", "--email", "o-cli@example.com", "--password", "long enough", "--role", "owner"],
      env,
    );
    expect(owner.code).toBe(0);
    expect(owner.stdout).toContain("role owner");
    const member = await runCliInProcess(["user", "create", "--email", "m-cli@example.com", "--password", "long enough", "--json"], env);
    expect(member.code).toBe(0);
    expect(JSON.parse(member.stdout).role).toBe("member");
    const bad = await runCliInProcess(
      ["user", "create", "--email", "x-cli@example.com", "--password", "long enough", "--role", "admin"],
      env,
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--role: Must be owner or member.");
  });

  it("shows members a 403 page on owner pages and refuses their owner forms, with the data unchanged", async () => {
    const { tab } = await signedIn(s, "operator");
    const page = await tab.request("/settings/users");
    expect(page.status).toBe(403);
    expect(page.text).toContain("<h1>Owners only</h1>");
    expect(page.text).toContain('href="/dashboard"');
    expect(page.text).not.toContain('href="/settings/users"'); // not in a member's menu
    const model = await tab.request("/settings/model");
    expect(model.status).toBe(403);
    expect(model.text).toContain("<h1>Owners only</h1>");
    const csrf = await tab.csrfToken("/dashboard");
    const before = await s.db.execute("SELECT count(*) AS n FROM users");
    const post = await tab.request("/settings/users", { form: { csrf, name: "Eve", email: "eve@example.com" } });
    expect(post.status).toBe(403);
    const demo = await tab.request("/dashboard/demo", { form: { csrf } });
    expect(demo.status).toBe(403);
    expect((await tab.request("/agents/pulse/run", { form: { csrf } })).status).toBe(403);
    expect((await tab.request("/agents/sales/schedule", { form: { csrf, schedule: "0 9 * * *" } })).status).toBe(403);
    const runs = await s.db.execute("SELECT count(*) AS n FROM agent_runs");
    expect(runs.rows[0]?.n).toBe(0);
    const schedule = await s.db.execute("SELECT schedule FROM agents WHERE id = 'sales'");
    expect(schedule.rows[0]?.schedule).toBe("30 8 * * 1-5"); // the catalog's default, unchanged
    expect((await s.db.execute("SELECT count(*) AS n FROM users")).rows[0]?.n).toBe(before.rows[0]?.n);
  });

  it("lets an owner load demo data and Run now through their operations; a model agent without a model cannot run yet", async () => {
    const own = await startServer(); // its own organization: the demo data must not reach the other tests' lists
    try {
      const owner = await own.createUser("pro", undefined, "owner");
      const tab = new Browserish(own.url);
      await tab.signIn(owner.email);
      const csrf = await tab.csrfToken("/dashboard");
      const demo = await tab.request("/dashboard/demo", { form: { csrf } });
      expect(demo.status).toBe(303);
      expect(demo.headers.get("location")).toBe("/dashboard?done=demo");
      const loaded = await own.db.execute({ sql: "SELECT count(*) AS n FROM suggestions WHERE org_id = ?", args: [owner.orgId] });
      expect(Number(loaded.rows[0]?.n)).toBeGreaterThan(0);
      const refused = await tab.request("/agents/sales/run", { form: { csrf } });
      expect(refused.status).toBe(409);
      expect(refused.text).toContain("<h1>Cannot run yet</h1>");
    } finally {
      await own.close();
    }
  });

  it("refuses a member's owner forms by the operation's own role rule, with the owners' page and nothing removed", async () => {
    const { tab } = await signedIn(s, "operator");
    const csrf = await tab.csrfToken("/dashboard");
    const owner = await s.createUser("pro", undefined, "owner");
    const ownerTab = new Browserish(s.url);
    await ownerTab.signIn(owner.email);
    const ownerCsrf = await ownerTab.csrfToken("/settings/notifications");
    await ownerTab.request("/settings/notifications/teams", { form: { csrf: ownerCsrf, webhookUrl: "https://example.com/teams-hook" } });
    const teams = () => s.db.execute("SELECT count(*) AS n FROM org_channels WHERE kind = 'teams'");
    expect((await teams()).rows[0]?.n).toBe(1);
    for (const [path, form] of [
      ["/settings/notifications/teams/delete", {}],
      ["/settings/slack/delete", {}],
      ["/settings/webhooks", { url: "https://example.com/hook", events: "action.created" }],
      ["/settings/model", { provider: "openai", model: "x" }],
      ["/agents/sales/cap", { dailyTokens: "5" }],
    ] as const) {
      const reply = await tab.request(path, { form: { csrf, ...form } });
      expect(reply.status, path).toBe(403);
      expect(reply.text, path).toContain("<h1>Owners only</h1>");
    }
    expect((await teams()).rows[0]?.n).toBe(1);
    expect((await s.db.execute("SELECT count(*) AS n FROM webhooks")).rows[0]?.n).toBe(0);
  });

  it("lets an owner create a user with a one-time link where they choose a password; the link then stops working", async () => {
    const owner = await s.createUser("lite", undefined, "owner");
    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);
    const csrf = await tab.csrfToken("/settings/users");
    const created = await tab.request("/settings/users", {
      form: { csrf, name: "Nia New", email: "nia@example.com", role: "member", plan: "pro" },
    });
    expect(created.status).toBe(201);
    const link = created.text.match(/id="new-link" value="([^"]+)"/)?.[1] ?? "";
    expect(link).toMatch(new RegExp(`^${s.url}/welcome\\?token=[a-z0-9]+$`));

    const nia = new Browserish(s.url);
    const path = link.slice(s.url.length);
    expect((await nia.request(path)).text).toContain("nia@example.com");
    const token = new URL(link).searchParams.get("token") ?? "";
    const short = await nia.request("/welcome", { form: { token, password: "short" } });
    expect(short.status).toBe(400);
    const done = await nia.request("/welcome", { form: { token, password: "a long new password" } });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/dashboard");
    expect((await nia.request("/api/auth/session")).json.user.email).toBe("nia@example.com");
    // Used once: the same link is refused, and the password works for sign-in.
    expect((await new Browserish(s.url).request(path)).status).toBe(410);
    await new Browserish(s.url).signIn("nia@example.com", "a long new password");

    // Role and plan changes; the last owner cannot demote themself.
    const niaId = String((await s.db.execute("SELECT id FROM users WHERE email = 'nia@example.com'")).rows[0]?.id);
    expect((await tab.request(`/settings/users/${niaId}`, { form: { csrf, role: "owner", plan: "operator" } })).status).toBe(303);
    const row = (await s.db.execute({ sql: "SELECT role, plan FROM users WHERE id = ?", args: [niaId] })).rows[0];
    expect([row?.role, row?.plan]).toEqual(["owner", "operator"]);

    // Deactivation: Nia's session and key stop working at once, her password no longer signs in.
    const key = await s.createKey((await getUserByEmail(s.db, "nia@example.com"))!, ["admin"]);
    expect((await api(s.url, key)("/api/mcp/agents")).status).toBe(200);
    expect((await tab.request(`/settings/users/${owner.id}/deactivate`, { form: { csrf } })).status).toBe(400); // not yourself
    expect((await tab.request(`/settings/users/${niaId}/deactivate`, { form: { csrf } })).status).toBe(303);
    expect((await nia.request("/api/auth/session")).status).toBe(401);
    expect((await api(s.url, key)("/api/mcp/agents")).status).toBe(401);
    const again = await new Browserish(s.url).request("/api/auth/sign-in", {
      json: { email: "nia@example.com", password: "a long new password" },
    });
    expect(again.status).toBe(401);
    expect((await tab.request("/settings/users")).text).toContain("deactivated");
  });
});

describe("GET /api/mcp/contacts", () => {
  it("lists contacts in name order, searches name, email and company, pages with a cursor, and refuses what it should", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    for (const [name, email, company] of [
      ["Zed Zimmer", "zed@zeta.io", "Zeta"],
      ["Ada Archer", "ada@acme.test", "Acme"],
      ["Bo Brown", undefined, "Acme 100%"],
    ] as const) {
      expect((await call("/api/mcp/contacts", { body: { name, email, company } })).status).toBe(200);
    }
    const all = await call("/api/mcp/contacts?limit=2");
    expect(all.status).toBe(200);
    expect(all.json.contacts.map((c: { name: string }) => c.name)).toEqual(["Ada Archer", "Bo Brown"]);
    const next = await call(`/api/mcp/contacts?limit=2&cursor=${all.json.nextCursor}`);
    expect(next.json.contacts.map((c: { name: string }) => c.name)).toEqual(["Zed Zimmer"]);
    expect(next.json.nextCursor).toBeNull();
    expect((await call("/api/mcp/contacts?q=ACME")).json.contacts).toHaveLength(2);
    expect((await call("/api/mcp/contacts?q=zeta.io")).json.contacts.map((c: { name: string }) => c.name)).toEqual(["Zed Zimmer"]);
    // % is a character here, not a wildcard.
    expect((await call("/api/mcp/contacts?q=100%25")).json.contacts.map((c: { name: string }) => c.name)).toEqual(["Bo Brown"]);
    const bad = await call("/api/mcp/contacts?cursor=nope");
    expect(bad.status).toBe(400);
    expect(bad.json.issues[0].path).toBe("cursor");
    expect((await call("/api/mcp/contacts?limit=0")).status).toBe(400);
    const { key: readKey } = await s.userWithKey("pro", ["read"]);
    const refused = await api(s.url, readKey)("/api/mcp/contacts");
    expect(refused.status).toBe(403);
  });
});
