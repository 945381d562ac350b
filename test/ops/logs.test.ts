/**
 * The access log and the audit log (src/docs/notes/operating.md) over one run of real requests: sign-ins (one
 * failing), a key made in the browser session and used, an OAuth connection (code, tokens,
 * refresh, revoke), a webhook with its signing secret, a password reset link, sign-out. The whole
 * log of the run is then searched for every secret the run created, and the audit table for every
 * event the run caused — each once, with actor, organization and time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/lib/log.ts";
import { listAudit } from "../../src/store/audit/audit.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { connect, exchangeCode, postForm } from "../helpers/oauth.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

const lines: string[] = [];
let s: TestServer;
const secrets = new Map<string, string>();
const remember = (what: string, value: string | null | undefined) => {
  expect(value, what).toEqual(expect.any(String));
  expect((value ?? "").length, what).toBeGreaterThan(7);
  secrets.set(what, value ?? "");
};

beforeAll(async () => {
  s = await startServer({ clock: new ManualClock(Date.now()), log: createLogger("debug", (line) => lines.push(line)) });
  const user = await s.createUser("operator", "logged@example.com", "owner");
  remember("password", TEST_PASSWORD);
  const tab = new Browserish(s.url);

  // A failed sign-in (the wrong password is a secret too), then a real one.
  const wrong = "wrong password that must not be logged";
  remember("wrong password", wrong);
  expect((await tab.request("/api/auth/sign-in", { json: { email: user.email, password: wrong } })).status).toBe(401);
  await tab.signIn(user.email);
  remember("session cookie", tab.cookie);
  const csrf = await tab.csrfToken();
  remember("csrf token", csrf);

  // A key created in the browser session and used as a Bearer credential (header and query-free).
  const made = await tab.request("/api/mcp/keys", { json: { name: "logged key", scopes: ["admin"] } });
  expect(made.status).toBe(200);
  remember("api key", made.json.key);
  expect((await fetch(`${s.url}/api/mcp/agents`, { headers: { authorization: `Bearer ${made.json.key}` } })).status).toBe(200);
  // A secret in a URL (a mistake a client could make) must not reach the log either.
  await fetch(`${s.url}/api/mcp/agents?access_token=${made.json.key}`);

  // OAuth: registration (client secret), code, access and refresh tokens, refresh, revoke.
  const connection = await connect(s.url, user.email, { register: { token_endpoint_auth_method: "client_secret_post" } });
  remember("client secret", connection.clientSecret);
  remember("authorization code", connection.code);
  remember("oauth browser cookie", connection.browser.cookies.get("crew_session"));
  const tokens = (await exchangeCode(s.url, connection, { client_secret: connection.clientSecret })).json;
  remember("access token", tokens.access_token);
  remember("refresh token", tokens.refresh_token);
  expect((await fetch(`${s.url}/api/mcp/agents`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  const refreshed = await postForm(`${s.url}/oauth/token`, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: connection.clientId,
    client_secret: connection.clientSecret,
  });
  remember("refreshed access token", refreshed.json.access_token);
  remember("refreshed refresh token", refreshed.json.refresh_token);
  const grants = await tab.request("/api/oauth/grants");
  const grantId = grants.json.grants[0].id as string;
  expect((await tab.request(`/api/oauth/grants?id=${grantId}`, { method: "DELETE" })).status).toBe(200);

  // A webhook: its signing secret is shown once.
  const hook = await fetch(`${s.url}/api/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${made.json.key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "http://127.0.0.1:9/hook?token=receiver-query-secret", events: ["action.created"] }),
  });
  const webhook = (await hook.json()) as { id: string; secret: string };
  remember("webhook secret", webhook.secret);
  remember("receiver query secret", "receiver-query-secret");
  expect(
    (await fetch(`${s.url}/api/webhooks/${webhook.id}`, { method: "DELETE", headers: { authorization: `Bearer ${made.json.key}` } }))
      .status,
  ).toBe(200);

  // A password reset link (printed by the CLI), used once.
  const env = {
    DATABASE_URL: s.config.databaseUrl,
    BASE_URL: s.url,
    LOG_LEVEL: "silent",
    CREW_SECRET: "test-secret-test-secret-test-secret-00",
  };
  const link = new URL((await runCliInProcess(["user", "reset-password", "--email", user.email], env)).stdout.trim());
  remember("reset token", link.searchParams.get("token"));
  const newPassword = "the new password of the logged user";
  remember("new password", newPassword);
  const resetTab = new Browserish(s.url);
  expect((await resetTab.request(`/reset-password?token=${link.searchParams.get("token")}`)).status).toBe(200);
  expect(
    (await resetTab.request("/reset-password", { form: { token: link.searchParams.get("token") ?? "", password: newPassword } })).status,
  ).toBe(303);
  remember("reset session cookie", resetTab.cookie);
  // The reset ended the first tab's session: the key is revoked from the new one.
  const revoked = await resetTab.request(`/api/mcp/keys?hash=${made.json.hash}`, { method: "DELETE" });
  expect(revoked.status).toBe(200);
  expect((await resetTab.request("/api/auth/sign-out", { method: "POST" })).status).toBeLessThan(400);
}, 60_000);

afterAll(() => s.close());

describe("access log", () => {
  it("writes one JSON line per request with request id, method, route pattern, status and duration", () => {
    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === "request");
    expect(access.length).toBeGreaterThan(15);
    for (const line of access) {
      expect(line).toMatchObject({
        level: "info",
        time: expect.any(String),
        request_id: expect.any(String),
        method: expect.stringMatching(/^[A-Z]+$/),
        route: expect.stringMatching(/^\/|^\(no route\)$/),
        status: expect.any(Number),
        duration_ms: expect.any(Number),
      });
    }
    expect(new Set(access.map((l) => l.request_id)).size).toBe(access.length);
    const keyed = access.find((l) => l.route === "/api/mcp/agents" && l.credential === "api_key");
    expect(keyed).toMatchObject({ status: 200, user_id: expect.stringMatching(/^usr_/) });
    expect(access.find((l) => l.route === "/api/mcp/agents" && l.credential === "oauth")).toBeDefined();
    expect(access.find((l) => l.route === "/api/webhooks/:id" && l.method === "DELETE")).toMatchObject({ status: 200 });
    expect(access.find((l) => l.route === "/api/mcp/keys" && l.credential === "session")).toBeDefined();
  });

  it("holds none of the secrets the run created (keys, tokens, cookies, passwords, links)", () => {
    const whole = lines.join("\n");
    expect(secrets.size).toBeGreaterThanOrEqual(15);
    const leaked = [...secrets].filter(([, value]) => whole.includes(value)).map(([what]) => what);
    expect(leaked).toEqual([]);
  });
});

describe("audit log", () => {
  it("records each event of the run once, with actor, organization and time", async () => {
    const entries = (await listAudit(s.db, s.org.id, 1000)).reverse();
    const events = entries.map((e) => e.event);
    expect(events).toEqual([
      "sign_in.failed",
      "sign_in.succeeded",
      "key.created",
      "sign_in.succeeded", // the OAuth connection signs in in its own browser
      "grant.approved",
      "grant.revoked",
      "webhook.created",
      "webhook.deleted",
      "user.password_reset",
      "key.revoked",
      "session.ended",
    ]);
    for (const e of entries) {
      expect(e.orgId).toBe(s.org.id);
      expect(e.at).toEqual(expect.any(Number));
      expect(e.actor.kind).toMatch(/^(user|system)$/);
    }
    const whole = JSON.stringify(entries);
    expect([...secrets].filter(([, value]) => whole.includes(value)).map(([what]) => what)).toEqual([]);
  });
});
