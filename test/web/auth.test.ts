import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, MINUTE } from "../../src/lib/clock.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { findSession } from "../../src/store/auth/sessions.ts";
import { startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";
import { Browserish, signedIn } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const withoutRequestId = (body: any) => ({ ...body, request_id: undefined });

describe("JSON sign-in", () => {
  it("signs in with the right password and returns the user and a session cookie", async () => {
    const user = await s.createUser("pro");
    const tab = new Browserish(s.url);
    const reply = await tab.request("/api/auth/sign-in", { json: { email: user.email.toUpperCase(), password: TEST_PASSWORD } });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ user: { id: user.id, email: user.email, name: user.name, plan: "pro" } });
    expect(tab.cookie).toMatch(/^[a-z2-7]{32}$/);
    const session = await tab.request("/api/auth/session");
    expect(session.status).toBe(200);
    expect(session.json.user.id).toBe(user.id);
    // Only the SHA-256 of the token is stored.
    expect(await findSession(s.db, sha256Hex(tab.cookie!))).not.toBeNull();
    expect(await findSession(s.db, tab.cookie!)).toBeNull();
  });

  it("sets the cookie HttpOnly, SameSite=Lax, Path=/, with a 30-day expiry and no Secure on http", async () => {
    const { tab } = await signedIn(s);
    const reply = await tab.signIn((await s.createUser()).email);
    const cookie = reply.setCookie!;
    expect(cookie).toMatch(/^crew_session=[a-z2-7]+;/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${30 * 24 * 3600}`);
    expect(cookie).toContain(`Expires=${new Date(s.clock.now() + 30 * DAY).toUTCString()}`);
    expect(cookie).not.toMatch(/Secure/i);
  });

  it("issues a new token at every sign-in and ends the browser's previous session", async () => {
    const user = await s.createUser();
    const tab = new Browserish(s.url);
    await tab.signIn(user.email);
    const first = tab.cookie!;
    await tab.signIn(user.email);
    expect(tab.cookie).not.toBe(first);
    expect(await findSession(s.db, sha256Hex(first))).toBeNull();
  });

  it("gives the same answer for an unknown email and a wrong password", async () => {
    const user = await s.createUser();
    const tab = new Browserish(s.url);
    const wrongPassword = await tab.request("/api/auth/sign-in", { json: { email: user.email, password: "not it" } });
    const unknownEmail = await tab.request("/api/auth/sign-in", { json: { email: `nobody-${user.email}`, password: "not it" } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(withoutRequestId(wrongPassword.json)).toEqual(withoutRequestId(unknownEmail.json));
    expect(wrongPassword.json).toMatchObject({ error: "unauthorized", message: "The email or password is wrong." });
    expect(wrongPassword.setCookie).toBeNull();
    expect(tab.cookie).toBeNull();
  });

  it("refuses a malformed body with the error envelope", async () => {
    const tab = new Browserish(s.url);
    const reply = await tab.request("/api/auth/sign-in", { json: { email: "a@b.c", password: 5, extra: 1 } });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toBe("invalid_request");
    expect(reply.json.issues.map((i: any) => i.path).sort()).toEqual(["extra", "password"]);
  });

  it("answers GET /api/auth/session with 401 when signed out", async () => {
    const reply = await new Browserish(s.url).request("/api/auth/session");
    expect(reply.status).toBe(401);
    expect(reply.json.error).toBe("unauthorized");
  });
});

describe("session lifetime", () => {
  it("expires after 30 days unused and slides when used in its last 15 days", async () => {
    const { tab } = await signedIn(s);
    const token = tab.cookie!;
    const start = s.clock.now();

    s.clock.advance(10 * DAY); // first half: valid, no write, no new cookie
    let reply = await tab.request("/api/auth/session");
    expect(reply.status).toBe(200);
    expect(reply.setCookie).toBeNull();
    expect((await findSession(s.db, sha256Hex(token)))!.expiresAt).toBe(start + 30 * DAY);

    s.clock.advance(16 * DAY); // day 26: renewed to 30 days from now, cookie sent again
    reply = await tab.request("/api/auth/session");
    expect(reply.status).toBe(200);
    expect(reply.setCookie).toContain(`crew_session=${token}`);
    expect(reply.setCookie).toContain(`Expires=${new Date(s.clock.now() + 30 * DAY).toUTCString()}`);
    expect((await findSession(s.db, sha256Hex(token)))!.expiresAt).toBe(s.clock.now() + 30 * DAY);

    s.clock.advance(29 * DAY); // past the original expiry, still inside the renewed one
    expect((await tab.request("/api/auth/session")).status).toBe(200);

    s.clock.advance(30 * DAY + 1); // unused for over 30 days: gone
    expect((await tab.request("/api/auth/session")).status).toBe(401);
    expect(await findSession(s.db, sha256Hex(token))).toBeNull();
  });
});

describe("sign-out", () => {
  it("invalidates the token server-side and clears the cookie", async () => {
    const { tab } = await signedIn(s);
    const token = tab.cookie!;
    const reply = await tab.request("/api/auth/sign-out", { method: "POST" });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true });
    expect(reply.setCookie).toMatch(/crew_session=;.*Max-Age=0/);
    // The old token, replayed, is refused.
    const replay = new Browserish(s.url);
    replay.cookie = token;
    expect((await replay.request("/api/auth/session")).status).toBe(401);
    expect(await findSession(s.db, sha256Hex(token))).toBeNull();
  });

  it("signs out from the page form with the csrf token and redirects to sign-in", async () => {
    const { tab } = await signedIn(s);
    const token = tab.cookie!;
    const csrf = await tab.csrfToken("/dashboard");
    const reply = await tab.request("/sign-out", { form: { csrf } });
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe("/sign-in");
    expect(await findSession(s.db, sha256Hex(token))).toBeNull();
  });
});

describe("CSRF", () => {
  it("refuses cookie-authenticated state changes from a foreign Origin", async () => {
    const { tab } = await signedIn(s);
    const token = tab.cookie!;
    const out = await tab.request("/api/auth/sign-out", { method: "POST", origin: "https://evil.example" });
    expect(out.status).toBe(403);
    expect(out.json.error).toBe("forbidden");
    const key = await tab.request("/api/mcp/keys", { json: { name: "x", scopes: ["read"] }, origin: "https://evil.example" });
    expect(key.status).toBe(403);
    const crossSite = await tab.request("/api/mcp/keys", {
      json: { name: "x", scopes: ["read"] },
      origin: null,
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    // Nothing changed: the session lives on and no key was made.
    expect(await findSession(s.db, sha256Hex(token))).not.toBeNull();
    expect((await tab.request("/api/mcp/keys")).json.keys).toEqual([]);
  });

  it("refuses a page form without the session's csrf token, even from the right Origin", async () => {
    const { tab } = await signedIn(s);
    const missing = await tab.request("/settings/keys", { form: { name: "k", scopes: "read" } });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain("Form refused");
    const wrong = await tab.request("/settings/keys", { form: { name: "k", scopes: "read", csrf: "a".repeat(32) } });
    expect(wrong.status).toBe(403);
    const csrf = await tab.csrfToken();
    const foreign = await tab.request("/settings/keys", { form: { name: "k", scopes: "read", csrf }, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await tab.request("/api/mcp/keys")).json.keys).toEqual([]);
  });

  it("refuses a sign-in form posted from another site (login CSRF)", async () => {
    const user = await s.createUser();
    const tab = new Browserish(s.url);
    const reply = await tab.request("/sign-in", { form: { email: user.email, password: TEST_PASSWORD }, origin: "https://evil.example" });
    expect(reply.status).toBe(403);
    expect(tab.cookie).toBeNull();
  });
});

describe("throttling failed sign-ins", () => {
  it("answers 429 with Retry-After after 10 failures for one email in 15 minutes, until the window passes", async () => {
    const user = await s.createUser();
    const tab = new Browserish(s.url);
    const attempt = (password: string) => tab.request("/api/auth/sign-in", { json: { email: user.email, password } });
    for (let i = 0; i < 10; i++) {
      expect((await attempt(`wrong ${i}`)).status).toBe(401);
      s.clock.advance(MINUTE);
    }
    // 10 failures within the last 10 minutes: even the right password is refused now.
    const refused = await attempt(TEST_PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toBe("rate_limited");
    // The oldest failure (10 minutes ago) leaves the window in 5 minutes.
    expect(refused.headers.get("retry-after")).toBe("300");
    expect(tab.cookie).toBeNull();
    // Other emails are not affected.
    const other = await s.createUser();
    expect(
      (await new Browserish(s.url).request("/api/auth/sign-in", { json: { email: other.email, password: TEST_PASSWORD } })).status,
    ).toBe(200);
    // The page says so too, in the page.
    const page = await tab.request("/sign-in", { form: { email: user.email, password: TEST_PASSWORD, next: "/dashboard" } });
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBe("300");
    expect(page.text).toContain("Too many failed sign-ins");

    s.clock.advance(5 * MINUTE);
    expect((await attempt(TEST_PASSWORD)).status).toBe(200);
  });

  it("throttles an unknown email exactly like a known one", async () => {
    const tab = new Browserish(s.url);
    for (let i = 0; i < 10; i++) await tab.request("/api/auth/sign-in", { json: { email: "ghost@example.com", password: "x" } });
    const reply = await tab.request("/api/auth/sign-in", { json: { email: "Ghost@Example.com", password: "x" } });
    expect(reply.status).toBe(429);
    expect(reply.headers.get("retry-after")).toBe("900");
  });
});

describe("sign-in page", () => {
  it("renders a labelled form with security headers", async () => {
    const reply = await new Browserish(s.url).request("/sign-in?next=/settings/keys");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(reply.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(reply.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(reply.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    expect(reply.headers.get("referrer-policy")).toBe("same-origin");
    expect(reply.text).toContain('<label for="email">Email</label>');
    expect(reply.text).toContain('<label for="password">Password</label>');
    expect(reply.text).toContain('name="next" value="/settings/keys"');
    expect(reply.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
  });

  it("redirects to next (same-origin paths only) with the cookie", async () => {
    const user = await s.createUser();
    const go = async (next: string) => {
      const tab = new Browserish(s.url);
      const reply = await tab.request("/sign-in", { form: { email: user.email, password: TEST_PASSWORD, next } });
      expect(reply.status).toBe(303);
      expect(tab.cookie).not.toBeNull();
      return reply.headers.get("location");
    };
    expect(await go("/settings/keys?x=1")).toBe("/settings/keys?x=1");
    expect(await go("//evil.example/path")).toBe("/dashboard");
    expect(await go("https://evil.example/")).toBe("/dashboard");
    expect(await go("/\\evil.example")).toBe("/dashboard");
  });

  it("issue 11 item 1: a signed-in user's next that normalises to //host does not leave the site", async () => {
    const { tab } = await signedIn(s);
    for (const next of ["/.//evil.example", "/%2e//evil.example", "/a/..//evil.example", "/%2E%2E//evil.example/x", "/./\\evil.example"]) {
      const reply = await tab.request(`/sign-in?next=${encodeURIComponent(next)}`);
      expect(reply.status, next).toBe(303);
      const location = reply.headers.get("location") ?? "";
      expect(new URL(location, s.url).origin, `${next} → ${location}`).toBe(new URL(s.url).origin);
      expect(location).toBe("/dashboard");
    }
    const user = await s.createUser();
    const reply = await new Browserish(s.url).request("/sign-in", {
      form: { email: user.email, password: TEST_PASSWORD, next: "/.//evil.example" },
    });
    expect(reply.headers.get("location")).toBe("/dashboard");
    expect((await tab.request(`/sign-in?next=${encodeURIComponent("/a/../settings/keys")}`)).headers.get("location")).toBe(
      "/settings/keys",
    );
  });

  it("shows a wrong password in the page, keeping the email", async () => {
    const user = await s.createUser();
    const reply = await new Browserish(s.url).request("/sign-in", { form: { email: user.email, password: "nope", next: "/dashboard" } });
    expect(reply.status).toBe(401);
    expect(reply.text).toContain('role="alert"');
    expect(reply.text).toContain("The email or password is wrong.");
    expect(reply.text).toContain(`value="${user.email}"`);
  });

  it("sends GET / to the dashboard when signed in and to sign-in otherwise", async () => {
    expect((await new Browserish(s.url).request("/")).headers.get("location")).toBe("/sign-in");
    const { tab } = await signedIn(s);
    expect((await tab.request("/")).headers.get("location")).toBe("/dashboard");
    const dashboard = await new Browserish(s.url).request("/dashboard");
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get("location")).toBe("/sign-in?next=%2Fdashboard");
  });
});

describe("https deployments", () => {
  it("marks the cookie Secure when BASE_URL is https", async () => {
    const secure = await startServer({ env: { BASE_URL: "https://crew.example" } });
    try {
      const user = await secure.createUser();
      const tab = new Browserish(secure.url);
      const reply = await tab.request("/api/auth/sign-in", {
        json: { email: user.email, password: TEST_PASSWORD },
        origin: "https://crew.example",
      });
      expect(reply.status).toBe(200);
      expect(reply.setCookie).toContain("Secure");
    } finally {
      await secure.close();
    }
  });
});
