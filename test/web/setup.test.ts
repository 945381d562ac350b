import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSetupLink } from "../../src/auth/setup.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { getUserByEmail } from "../../src/store/auth/users.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const pathOf = (link: string) => link.slice(s.url.length);
const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

describe("first-run setup link", () => {
  it("creates the owner once; the link (and any other) stops working after", async () => {
    const link = await ensureSetupLink(s.db, s.config, s.clock.now());
    expect(link).toMatch(new RegExp(`^${s.url}/setup\\?token=[a-z2-7]{52}$`));
    const spare = (await ensureSetupLink(s.db, s.config, s.clock.now()))!; // a second start before anyone used the first
    // Only the SHA-256 of the token is stored.
    const stored = await s.db.one<{ token_hash: string }>("SELECT token_hash FROM setup_tokens WHERE token_hash = ?", [
      sha256Hex(tokenOf(link!)),
    ]);
    expect(stored).not.toBeNull();
    expect(await s.db.one("SELECT 1 FROM setup_tokens WHERE token_hash = ?", [tokenOf(link!)])).toBeNull();

    const tab = new Browserish(s.url);
    const page = await tab.request(pathOf(link!));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="name">Your name</label>');
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");

    // Field errors are shown in the page; nothing is used up.
    const bad = await tab.request("/setup", { form: { token: tokenOf(link!), name: "", email: "not-an-email", password: "short" } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("Enter your name.");
    expect(bad.text).toContain("Must be a valid email address.");
    expect(bad.text).toContain("Use at least 8 characters.");
    // The limits a browser checks are the server's own rule (auth/passwords.ts Password), said beside the field.
    expect(bad.text).toMatch(
      /<input id="password" name="password" type="password" value="" required minlength="8" maxlength="1024" autocomplete="new-password" aria-invalid="true" aria-describedby="password-error">/,
    );
    expect(bad.text).toMatch(/<input id="name" name="name" type="text" value="" required minlength="1" maxlength="200"/);

    const done = await tab.request("/setup", {
      form: { token: tokenOf(link!), name: "Olivia Owner", email: "Owner@Example.com", password: "a long enough password" },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/dashboard");
    expect(done.setCookie).toContain("HttpOnly");
    const session = await tab.request("/api/auth/session");
    expect(session.json.user).toMatchObject({ email: "owner@example.com", name: "Olivia Owner", plan: "operator" });
    expect((await getUserByEmail(s.db, "owner@example.com"))?.orgId).toBe(s.org.id);

    // Used: the same link, and the spare one, no longer work, nor can they post.
    for (const l of [link!, spare]) {
      const again = await new Browserish(s.url).request(pathOf(l));
      expect(again.status).toBe(410);
      expect(again.text).toContain("Setup link not valid");
      const post = await new Browserish(s.url).request("/setup", {
        form: { token: tokenOf(l), name: "Mallory", email: "m@example.com", password: "another password" },
      });
      expect(post.status).toBe(410);
    }
    expect(await getUserByEmail(s.db, "m@example.com")).toBeNull();
    // A user exists now: no new link is printed at start.
    expect(await ensureSetupLink(s.db, s.config, s.clock.now())).toBeNull();
  });

  it("refuses an unknown token and a missing one", async () => {
    expect((await new Browserish(s.url).request("/setup?token=nope")).status).toBe(410);
    expect((await new Browserish(s.url).request("/setup")).status).toBe(410);
  });
});
