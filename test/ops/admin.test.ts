/**
 * Administration from the command line (src/docs/notes/operating.md) against a real server on loopback: password
 * reset links, deactivation, key list/revoke, organizations. The CLI runs in this process on the
 * server's database file; the server's clock is a ManualClock set to now, so the CLI's one-hour
 * link expiry can be passed without waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, ManualClock } from "../../src/lib/clock.ts";
import { listAudit } from "../../src/store/audit/audit.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { connect, exchangeCode } from "../helpers/oauth.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

let s: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  s = await startServer({ clock: new ManualClock(Date.now()) });
  env = { DATABASE_URL: s.config.databaseUrl, BASE_URL: s.url, CREW_SECRET: "test-secret-test-secret-test-secret-00", LOG_LEVEL: "silent" };
});
afterAll(() => s.close());

const crew = (...args: string[]) => runCliInProcess(args, env);
const bearer = (key: string, path = "/api/mcp/agents") => fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe("crew user reset-password", () => {
  it("prints a link that signs in once with the new password and expires after an hour", async () => {
    const user = await s.createUser("operator");
    const printed = await crew("user", "reset-password", "--email", user.email);
    expect(printed.code).toBe(0);
    expect(printed.stderr).toMatch(/valid for one hour/);
    const link = new URL(printed.stdout.trim());
    expect(link.origin + link.pathname).toBe(`${s.url}/reset-password`);
    const token = link.searchParams.get("token") ?? "";

    const tab = new Browserish(s.url);
    const form = await tab.request(`/reset-password?token=${token}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="password"');
    const used = await tab.request("/reset-password", { form: { token, password: "a brand new password" } });
    expect(used.status).toBe(303);
    expect(used.headers.get("location")).toBe("/dashboard");
    expect((await tab.request("/api/auth/session")).json.user.email).toBe(user.email);

    // Once: the same link again is refused, and the new password is the one that works.
    const again = new Browserish(s.url);
    expect((await again.request("/reset-password", { form: { token, password: "yet another password" } })).status).toBe(410);
    expect((await again.request("/api/auth/sign-in", { json: { email: user.email, password: TEST_PASSWORD } })).status).toBe(401);
    expect((await again.request("/api/auth/sign-in", { json: { email: user.email, password: "a brand new password" } })).status).toBe(200);

    // Expiry: a fresh link an hour later answers 410 and changes nothing.
    const second = new URL((await crew("user", "reset-password", "--email", user.email)).stdout.trim()).searchParams.get("token") ?? "";
    s.clock.set(Date.now() + HOUR + 60_000);
    const late = new Browserish(s.url);
    expect((await late.request(`/reset-password?token=${second}`)).status).toBe(410);
    expect((await late.request("/reset-password", { form: { token: second, password: "too late password" } })).status).toBe(410);
    expect((await late.request("/api/auth/sign-in", { json: { email: user.email, password: "a brand new password" } })).status).toBe(200);
    const resets = (await listAudit(s.db, s.org.id, 100)).filter((e) => e.event === "user.password_reset" && e.subject === user.email);
    expect(resets).toHaveLength(1);
  });

  it("--password sets the password at once and ends the user's sessions", async () => {
    const user = await s.createUser("pro");
    const tab = new Browserish(s.url);
    await tab.signIn(user.email);
    const set = await crew("user", "reset-password", "--email", user.email, "--password", "set by the operator");
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect((await tab.request("/api/auth/session")).status).toBe(401);
    await new Browserish(s.url).signIn(user.email, "set by the operator");
  });
});

describe("crew user deactivate", () => {
  it("stops the user's session, API key and OAuth grant on the next request, and refuses sign-in", async () => {
    const user = await s.createUser("operator");
    const key = await s.createKey(user, ["read"]);
    const tab = new Browserish(s.url);
    await tab.signIn(user.email);
    const connection = await connect(s.url, user.email);
    const token = (await exchangeCode(s.url, connection)).json.access_token as string;
    expect((await bearer(key)).status).toBe(200);
    expect((await bearer(token)).status).toBe(200);
    expect((await tab.request("/api/auth/session")).status).toBe(200);

    const done = await crew("user", "deactivate", "--email", user.email);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^Deactivated /);
    expect((await bearer(key)).status).toBe(401);
    expect((await bearer(token)).status).toBe(401);
    expect((await tab.request("/api/auth/session")).status).toBe(401);
    expect(
      (await new Browserish(s.url).request("/api/auth/sign-in", { json: { email: user.email, password: TEST_PASSWORD } })).status,
    ).toBe(401);
    const listed = JSON.parse((await crew("user", "list", "--json")).stdout) as { email: string; deactivatedAt: string | null }[];
    expect(listed.find((u) => u.email === user.email)?.deactivatedAt).toEqual(expect.any(String));
    expect((await crew("key", "create", "--email", user.email, "--name", "again", "--scopes", "read")).code).toBe(1);
  });
});

describe("crew key list and crew key revoke", () => {
  it("lists a user's keys by hash and revokes one: the next request with it gets 401", async () => {
    const user = await s.createUser("operator");
    const key = await s.createKey(user, ["read"], "laptop");
    const listed = JSON.parse((await crew("key", "list", "--email", user.email, "--json")).stdout) as { hash: string; name: string }[];
    expect(listed.map((k) => k.name)).toEqual(["laptop"]);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect((await bearer(key)).status).toBe(200);
    const revoked = await crew("key", "revoke", "--hash", listed[0]?.hash ?? "");
    expect(revoked).toMatchObject({ code: 0, stderr: "" });
    expect((await bearer(key)).status).toBe(401);
    expect((await crew("key", "revoke", "--hash", listed[0]?.hash ?? "")).stderr).toBe(
      "crew key revoke: No active API key has this hash.\n",
    );
    expect((await crew("key", "revoke", "--hash", "nothex")).code).toBe(2);
  });
});

describe("crew org create and crew org list", () => {
  it("creates organizations with their own agents; --org picks one by name or id", async () => {
    const created = await crew("org", "create", "--name", "Second Org", "--time-zone", "Europe/Paris", "--json");
    expect(created.code).toBe(0);
    const org = JSON.parse(created.stdout) as { id: string; name: string; timeZone: string };
    expect(org).toMatchObject({ name: "Second Org", timeZone: "Europe/Paris" });
    expect((await crew("org", "create", "--name", "Second Org")).stderr).toBe(
      'crew org create: an organization named "Second Org" already exists\n',
    );
    expect((await crew("org", "create", "--name", "Third", "--time-zone", "Mars/Olympus")).code).toBe(2);

    const listed = JSON.parse((await crew("org", "list", "--json")).stdout) as { id: string; isDefault: boolean }[];
    expect(listed.map((o) => o.id)).toEqual([s.org.id, org.id]);
    const agents = await s.db.execute({ sql: "SELECT count(*) AS n FROM agents WHERE org_id = ?", args: [org.id] });
    expect(agents.rows[0]?.n).toBe(17);

    const made = await crew(
      "user",
      "create",
      "--email",
      "second@example.com",
      "--password",
      "second org pw",
      "--org",
      "Second Org",
      "--json",
    );
    expect(JSON.parse(made.stdout).orgId).toBe(org.id);
    const users = JSON.parse((await crew("user", "list", "--org", org.id, "--json")).stdout) as { email: string }[];
    expect(users.map((u) => u.email)).toEqual(["second@example.com"]);
    expect((await crew("user", "list", "--org", "No Such Org")).stderr).toBe(
      'crew user list: no organization with id or name "No Such Org" (see crew org list)\n',
    );
    const audit = JSON.parse((await crew("audit", "--org", "Second Org", "--json")).stdout) as { event: string; actor: { kind: string } }[];
    expect(audit).toEqual([expect.objectContaining({ event: "user.created", actor: { kind: "cli" } })]);
  });
});
