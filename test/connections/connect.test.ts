/**
 * Connecting Google Workspace and Microsoft 365 (src/docs/notes/connections.md), walked over HTTP
 * like a browser against the fake providers on loopback (test/helpers/fake-google.ts,
 * fake-microsoft.ts; the real ones are out of reach): the least-privilege scopes and PKCE checked
 * at the fake, a tampered `state` refused, the connection listed without any token, and a
 * disconnect that calls Google's revocation endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAccount, signedInTab } from "../helpers/connect-account.ts";
import { type FakeGoogle, startFakeGoogle } from "../helpers/fake-google.ts";
import { type FakeMicrosoft, startFakeMicrosoft } from "../helpers/fake-microsoft.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let google: FakeGoogle;
let microsoft: FakeMicrosoft;
let s: TestServer;

beforeAll(async () => {
  google = await startFakeGoogle();
  microsoft = await startFakeMicrosoft();
  s = await startServer({ env: { ...google.env, ...microsoft.env } });
}, 30_000);

afterAll(async () => {
  await s?.close();
  await google?.close();
  await microsoft?.close();
});

const GOOGLE_SCOPES = [
  "openid",
  "email",
  "https://www.googleapis.com/auth/gmail.readonly",
  "https://www.googleapis.com/auth/calendar.readonly",
  "https://www.googleapis.com/auth/calendar.events",
];

describe("connect a Google account (fake Google on loopback)", () => {
  it("asks for the least-privilege scopes with PKCE S256 and offline access, and stores the connection without showing a token", async () => {
    const user = await s.createUser("operator", "ada.connect@example.org", "owner");
    const tab = await signedInTab(s, user.email);
    const page = await (await tab.fetch("/settings/connections")).text();
    expect(page).toContain("Connect Google");
    expect(page).toContain("Connect Microsoft 365");

    const walked = await connectAccount(tab, "google");
    expect(walked.callback.status).toBe(303);
    expect(walked.callback.headers.get("location")).toBe("/settings/connections?done=connected");
    const asked = google.authorizations.at(-1)!;
    expect(asked.scopes).toEqual(GOOGLE_SCOPES);
    expect(asked.params).toMatchObject({
      response_type: "code",
      client_id: "crew-test.apps.googleusercontent.com",
      redirect_uri: `${s.url}/integrations/google/callback`,
      code_challenge_method: "S256",
      access_type: "offline",
      prompt: "consent",
    });
    expect(asked.params.state?.length).toBeGreaterThan(20);
    expect(asked.params.nonce?.length).toBeGreaterThan(20);
    // The fake checked the verifier against the challenge: the code grant succeeded.
    const grant = google.tokenCalls.find((t) => t.grant === "authorization_code")!;
    expect(grant.status).toBe(200);
    expect(grant.params.code_verifier?.length).toBeGreaterThanOrEqual(43);

    const key = await s.createKey(user, ["admin"]);
    const listed = await api(s.url, key)("/api/integrations/connections");
    expect(listed.status).toBe(200);
    expect(listed.json.connections).toEqual([
      {
        provider: "google",
        email: "ada@example.org",
        mail: true,
        calendar: true,
        scopes: GOOGLE_SCOPES,
        connectedAt: expect.any(String),
        problem: null,
      },
    ]);
    expect(listed.json.providers).toEqual([
      { id: "google", label: "Google", available: true },
      { id: "microsoft", label: "Microsoft 365", available: true },
    ]);
    // No token anywhere: not in the answer, not in the stored row's clear text.
    expect(listed.text).not.toMatch(/at-\d|rt-\d/);
    const row = await s.db.one<{ config: string }>("SELECT config FROM integrations WHERE user_id = ? AND kind = 'google'", [user.id]);
    expect(row?.config).not.toMatch(/at-\d|rt-\d/);
    expect(await (await tab.fetch("/settings/connections")).text()).toContain("ada@example.org");

    // Disconnect: the refresh token is revoked at Google's endpoint, the row is gone.
    const removed = await api(s.url, key)("/api/integrations/connections/google", { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(google.revoked).toHaveLength(1);
    expect(google.revoked[0]).toMatch(/^rt-/);
    expect((await api(s.url, key)("/api/integrations/connections")).json.connections).toEqual([]);
    const again = await api(s.url, key)("/api/integrations/connections/google", { method: "DELETE" });
    expect(again.status).toBe(404);
  });

  it("refuses a callback whose state was tampered with, and stores nothing", async () => {
    const user = await s.createUser("operator", "tamper@example.org", "owner");
    const tab = await signedInTab(s, user.email);
    const walked = await connectAccount(tab, "google", { mail: true }, (url) => url.searchParams.set("state", "forged-state-value"));
    expect(walked.callback.status).toBe(400);
    expect(await walked.callback.text()).toContain("does not check out");
    expect(await s.db.one("SELECT 1 AS found FROM integrations WHERE user_id = ?", [user.id])).toBeNull();
  });

  it("leaves calendar out when it is unticked: only the mail scope is asked for", async () => {
    const user = await s.createUser("operator", "mailonly@example.org", "owner");
    const tab = await signedInTab(s, user.email);
    await connectAccount(tab, "google", { mail: true, calendar: false });
    expect(google.authorizations.at(-1)!.scopes).toEqual(["openid", "email", "https://www.googleapis.com/auth/gmail.readonly"]);
    const key = await s.createKey(user, ["admin"]);
    expect((await api(s.url, key)("/api/integrations/connections")).json.connections[0]).toMatchObject({ mail: true, calendar: false });
  });
});

describe("deactivation", () => {
  it("deletes the person's connections and revokes them at Google", async () => {
    const person = await s.createUser("operator", "leaving@example.org", "member");
    await connectAccount(await signedInTab(s, person.email), "google", { mail: true });
    const revokedBefore = google.revoked.length;
    const owner = await s.createUser("operator", "deactivating.owner@example.org", "owner");
    const tab = await signedInTab(s, owner.email);
    const csrf = await tab.csrf("/settings/users");
    const res = await tab.fetch(`/settings/users/${person.id}/deactivate`, { form: { csrf } });
    expect(res.status).toBe(303);
    expect(google.revoked.length).toBe(revokedBefore + 1);
    expect(await s.db.one("SELECT 1 AS found FROM integrations WHERE user_id = ?", [person.id])).toBeNull();
  });
});

describe("connect a Microsoft 365 account (fake Entra ID on loopback)", () => {
  it("asks for openid email offline_access User.Read Mail.Read Calendars.ReadWrite with PKCE, and lists the connection", async () => {
    const user = await s.createUser("operator", "grace.connect@example.org", "owner");
    const tab = await signedInTab(s, user.email);
    const walked = await connectAccount(tab, "microsoft");
    expect(walked.callback.status).toBe(303);
    const asked = microsoft.authorizations.at(-1)!;
    expect(asked.scopes).toEqual(["openid", "email", "offline_access", "User.Read", "Mail.Read", "Calendars.ReadWrite"]);
    expect(asked.params).toMatchObject({ code_challenge_method: "S256", redirect_uri: `${s.url}/integrations/microsoft/callback` });
    const key = await s.createKey(user, ["admin"]);
    const listed = await api(s.url, key)("/api/integrations/connections");
    expect(listed.json.connections).toEqual([
      expect.objectContaining({ provider: "microsoft", email: "grace@contoso.example", mail: true, calendar: true }),
    ]);
    // Microsoft has no revocation endpoint for one grant: disconnect deletes the tokens.
    expect((await api(s.url, key)("/api/integrations/connections/microsoft", { method: "DELETE" })).status).toBe(200);
    expect((await api(s.url, key)("/api/integrations/connections")).json.connections).toEqual([]);
  });

  it("refuses a tampered state at Microsoft too", async () => {
    const a = await s.createUser("operator", "first.ms@example.org", "owner");
    const tab = await signedInTab(s, a.email);
    const walked = await connectAccount(tab, "microsoft", { mail: true }, (url) => url.searchParams.set("state", "x"));
    expect(walked.callback.status).toBe(400);
  });
});
