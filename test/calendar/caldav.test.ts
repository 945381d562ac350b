/**
 * The connected calendar against a real CalDAV server (Radicale 3.1.8, test/helpers/radicale.ts):
 * connecting over REST, the two calendar tools through the MCP SDK client, the alert when the
 * server rejects the saved password, and the password sealed at rest.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import ICAL from "ical.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { open } from "../../src/integrations/secret-box.ts";
import { ManualClock } from "../../src/lib/clock.ts";

import type { User } from "../../src/store/auth/users.ts";
import { connectHttp, errorJson, firstText, outputConforms } from "../helpers/mcp.ts";
import { type Radicale, startRadicale } from "../helpers/radicale.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

// Monday 2026-11-23, 07:00 UTC (08:00 in Paris).
const NOW = Date.parse("2026-11-23T07:00:00Z");
const PASSWORDS = { alice: "alice-pw", bob: "bob-pw", carol: "carol-pw", dave: "dave-pw", erin: "erin-pw" } as const;

let dav: Radicale;
let s: TestServer;
const calendars: Record<string, string> = {};
const clients: Client[] = [];

beforeAll(async () => {
  [dav, s] = await Promise.all([startRadicale({ ...PASSWORDS }), startServer({ clock: new ManualClock(NOW) })]);
  for (const [user, password] of Object.entries(PASSWORDS)) calendars[user] = await dav.makeCalendar(user, password);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.close();
  await dav?.stop();
});

async function crewUser(): Promise<{ user: User; key: string; rest: ReturnType<typeof api>; mcp: Client; tools: Tool[] }> {
  const { user, key } = await s.userWithKey("operator", ["admin"]);
  const mcp = await connectHttp(s.url, key);
  clients.push(mcp);
  const { tools } = await mcp.listTools(); // the SDK client then checks structuredContent against each outputSchema
  return { user, key, rest: api(s.url, key), mcp, tools };
}

async function connected(davUser: keyof typeof PASSWORDS) {
  const me = await crewUser();
  const reply = await me.rest("/api/integrations/calendar", { body: { url: dav.url, username: davUser, password: PASSWORDS[davUser] } });
  expect(reply.status, reply.text).toBe(200);
  return me;
}

async function call(me: { mcp: Client; tools: Tool[] }, name: string, args: Record<string, unknown>) {
  const result = (await me.mcp.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) {
    const tool = me.tools.find((t) => t.name === name);
    expect(tool && outputConforms(tool, result)).toEqual({ valid: true });
  }
  return result;
}

const event = (uid: string, ...lines: string[]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//test//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261101T000000Z",
    ...lines,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");

describe("POST/GET/DELETE /api/integrations/calendar", () => {
  it("connects after signing in to the server, shows the connection without the password, and seals the password at rest", async () => {
    const me = await crewUser();
    const reply = await me.rest("/api/integrations/calendar", {
      body: { url: `${dav.url}/`, username: "alice", password: PASSWORDS.alice },
    });
    expect(reply.status, reply.text).toBe(200);
    const expected = {
      connected: true,
      url: `${dav.url}/`,
      username: "alice",
      calendarName: "Work",
      calendarUrl: calendars.alice,
      connectedAt: new Date(NOW).toISOString(),
      problem: null,
    };
    expect(reply.json).toEqual(expected);
    const shown = await me.rest("/api/integrations/calendar");
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual(expected);
    expect(shown.text).not.toContain(PASSWORDS.alice);

    const row = await s.db.one<{ config: string }>("SELECT config FROM integrations WHERE user_id = ? AND kind = 'calendar'", [me.user.id]);
    expect(row?.config).not.toContain(PASSWORDS.alice);
    const stored = JSON.parse(row?.config ?? "{}");
    expect(stored.password).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(await open(s.config.secret ?? "", stored.password, `calendar:${me.user.id}`)).toBe(PASSWORDS.alice);
  });

  it("picks the calendar named by the URL, and replaces the connection when connecting again", async () => {
    const me = await crewUser();
    const second = await dav.makeCalendar("alice", PASSWORDS.alice, "private", "Private");
    await me.rest("/api/integrations/calendar", { body: { url: dav.url, username: "alice", password: PASSWORDS.alice } });
    const reply = await me.rest("/api/integrations/calendar", { body: { url: second, username: "alice", password: PASSWORDS.alice } });
    expect(reply.json).toMatchObject({ calendarName: "Private", calendarUrl: second });
    const rows = await s.db.one<{ n: number }>("SELECT count(*) AS n FROM integrations WHERE user_id = ?", [me.user.id]);
    expect(rows?.n).toBe(1);
  });

  it("refuses a wrong password, an unreachable server and a server without CalDAV with 400, storing nothing", async () => {
    const me = await crewUser();
    const wrong = await me.rest("/api/integrations/calendar", { body: { url: dav.url, username: "alice", password: "nope" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ error: "calendar_credentials_rejected", issues: [{ path: "password" }] });
    expect(wrong.json.message).toMatch(/rejected the username and password \(HTTP 401\)/);

    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await me.rest("/api/integrations/calendar", { body: { url: closed, username: "alice", password: "x" } });
    expect(unreachable.status).toBe(400);
    expect(unreachable.json).toMatchObject({ error: "calendar_unreachable", issues: [{ path: "url" }] });
    expect(unreachable.json.message).toContain(new URL(closed).host);

    const notCalDav = await me.rest("/api/integrations/calendar", { body: { url: `${s.url}/healthz`, username: "alice", password: "x" } });
    expect(notCalDav.status).toBe(400);
    expect(notCalDav.json).toMatchObject({ error: "calendar_not_found", issues: [{ path: "url" }] });

    const invalid = await me.rest("/api/integrations/calendar", {
      body: { url: "ftp://example.com/", username: "", password: "x", extra: 1 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json.issues.map((i: { path: string }) => i.path)).toEqual(["url", "username", "extra"]);

    expect((await me.rest("/api/integrations/calendar")).json).toMatchObject({ connected: false, url: null, calendarName: null });
    expect(await s.db.one("SELECT 1 FROM integrations WHERE user_id = ?", [me.user.id])).toBeNull();
  });

  it("disconnects (then 404 and the tools say how to connect), and needs a write credential", async () => {
    const me = await connected("alice");
    const readKey = await s.createKey(me.user, ["read"]);
    const denied = await api(s.url, readKey)("/api/integrations/calendar");
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ error: "insufficient_scope", required_scope: "admin" });
    expect((await api(s.url)("/api/integrations/calendar")).status).toBe(401);

    expect((await me.rest("/api/integrations/calendar", { method: "DELETE" })).json).toEqual({ ok: true });
    expect((await me.rest("/api/integrations/calendar")).json.connected).toBe(false);
    const again = await me.rest("/api/integrations/calendar", { method: "DELETE" });
    expect(again.status).toBe(404);
    const tool = await call(me, "crew_find_time", { durationMinutes: 30 });
    expect(errorJson(tool)).toMatchObject({ error: "calendar_not_connected" });
    expect(firstText(tool)).toContain(`${s.url}/api/integrations/calendar`);
    const pastWindow = await call(me, "crew_find_time", { durationMinutes: 30, from: "2026-11-01T00:00:00Z", to: "2026-11-02T00:00:00Z" });
    expect(errorJson(pastWindow)).toMatchObject({ error: "calendar_not_connected" });
  });
});

describe("plan_my_day and the calendar", () => {
  it("issue 18 item 12: lists free slots to a write credential, and leaves them out for a briefing-only key of the same user", async () => {
    const me = await connected("erin");
    const full = await me.mcp.getPrompt({ name: "plan_my_day" });
    const fullText = full.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
    expect(fullText).toContain("Free 30-minute slots on my calendar");

    const briefingOnly = await connectHttp(s.url, await s.createKey(me.user, ["briefing"]));
    clients.push(briefingOnly);
    // crew_find_time is not this key's tool, so the prompt must not show what it would return.
    expect((await briefingOnly.listTools()).tools.map((t) => t.name)).not.toContain("crew_find_time");
    const limited = await briefingOnly.getPrompt({ name: "plan_my_day" });
    const limitedText = limited.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
    expect(limitedText).not.toContain("Free 30-minute slots");
    expect(limitedText).toContain("Free slots are left out:");
    expect(limitedText).toContain("admin");
    // Issue 19: the prompt reads the queue through crew_list_actions' operation, which this key may not call.
    expect(limitedText).toContain("Open actions are left out:");
  });
});

describe("crew_find_time", () => {
  let bob: Awaited<ReturnType<typeof connected>>;
  beforeAll(async () => {
    bob = await connected("bob");
    const cal = calendars.bob ?? "";
    // Monday 23rd, 09:00–10:30 Paris: a one-off meeting.
    await dav.putEvent(
      cal,
      "bob",
      PASSWORDS.bob,
      "one-off",
      event("one-off", "DTSTART;TZID=Europe/Paris:20261123T090000", "DTEND;TZID=Europe/Paris:20261123T103000", "SUMMARY:Board"),
    );
    // Every Monday since 2 November, 10:30–12:00 Paris: only expansion puts it on the 23rd and the 30th.
    await dav.putEvent(
      cal,
      "bob",
      PASSWORDS.bob,
      "weekly",
      event(
        "weekly",
        "DTSTART;TZID=Europe/Paris:20261102T103000",
        "DTEND;TZID=Europe/Paris:20261102T120000",
        "RRULE:FREQ=WEEKLY;BYDAY=MO",
        "SUMMARY:Team",
      ),
    );
    // Tuesday 24th, all day.
    await dav.putEvent(
      cal,
      "bob",
      PASSWORDS.bob,
      "offsite",
      event("offsite", "DTSTART;VALUE=DATE:20261124", "DTEND;VALUE=DATE:20261125", "SUMMARY:Offsite"),
    );
  });

  it("skips a busy event and every occurrence of a weekly one, in the requested time zone", async () => {
    const result = await call(bob, "crew_find_time", { durationMinutes: 60, timeZone: "Europe/Paris" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      timeZone: "Europe/Paris",
      slots: [
        { start: "2026-11-23T12:00:00+01:00", end: "2026-11-23T13:00:00+01:00" },
        { start: "2026-11-23T13:00:00+01:00", end: "2026-11-23T14:00:00+01:00" },
        { start: "2026-11-23T14:00:00+01:00", end: "2026-11-23T15:00:00+01:00" },
      ],
    });
    expect(JSON.parse(firstText(result))).toEqual(result.structuredContent);

    const nextMonday = await call(bob, "crew_find_time", {
      durationMinutes: 60,
      timeZone: "Europe/Paris",
      from: "2026-11-30T10:00:00+01:00",
      count: 1,
    });
    expect(nextMonday.structuredContent).toEqual({
      timeZone: "Europe/Paris",
      slots: [{ start: "2026-11-30T12:00:00+01:00", end: "2026-11-30T13:00:00+01:00" }],
    });
  });

  it("skips all-day events and weekends, and honours working hours", async () => {
    const result = await call(bob, "crew_find_time", {
      durationMinutes: 30,
      timeZone: "Europe/Paris",
      from: "2026-11-24T00:00:00+01:00",
      count: 1,
      workingHours: { start: "08:00", end: "18:00" },
    });
    expect(result.structuredContent).toMatchObject({ slots: [{ start: "2026-11-25T08:00:00+01:00", end: "2026-11-25T08:30:00+01:00" }] });
    const weekend = await call(bob, "crew_find_time", { durationMinutes: 30, from: "2026-11-28T00:00:00Z", to: "2026-11-29T23:00:00Z" });
    expect(weekend.structuredContent).toEqual({ timeZone: "UTC", slots: [] });
  });

  it("answers in the user's time zone, else the organization's", async () => {
    const org = await call(bob, "crew_find_time", { durationMinutes: 30, count: 1, from: "2026-11-25T00:00:00Z" });
    expect(org.structuredContent).toEqual({
      timeZone: "UTC",
      slots: [{ start: "2026-11-25T09:00:00+00:00", end: "2026-11-25T09:30:00+00:00" }],
    });
    await s.db.execute({ sql: "UPDATE users SET time_zone = 'America/New_York' WHERE id = ?", args: [bob.user.id] });
    try {
      const own = await call(bob, "crew_find_time", { durationMinutes: 30, count: 1, from: "2026-11-25T00:00:00Z" });
      expect(own.structuredContent).toEqual({
        timeZone: "America/New_York",
        slots: [{ start: "2026-11-25T09:00:00-05:00", end: "2026-11-25T09:30:00-05:00" }],
      });
    } finally {
      await s.db.execute({ sql: "UPDATE users SET time_zone = NULL WHERE id = ?", args: [bob.user.id] });
    }
  });

  it("refuses a window over 62 days, and never proposes the past", async () => {
    const long = await call(bob, "crew_find_time", { durationMinutes: 30, to: "2027-03-01T00:00:00Z" });
    expect(errorJson(long)).toMatchObject({ error: "invalid_request", issues: [{ path: "to" }] });
    const gone = await call(bob, "crew_find_time", { durationMinutes: 30, from: "2026-11-20T00:00:00Z", to: "2026-11-21T00:00:00Z" });
    expect(gone.structuredContent).toEqual({ timeZone: "UTC", slots: [] });
    const past = await call(bob, "crew_find_time", { durationMinutes: 30, from: "2026-11-20T00:00:00Z", count: 1, timeZone: "UTC" });
    // Now is Monday 07:00 UTC; bob's Monday meetings (09:00–12:00 in Paris) are 08:00–11:00 UTC.
    expect(past.structuredContent).toEqual({
      timeZone: "UTC",
      slots: [{ start: "2026-11-23T11:00:00+00:00", end: "2026-11-23T11:30:00+00:00" }],
    });
  });
});

describe("crew_calendar_create", () => {
  it("writes a VEVENT that the server stores and crew_find_time then sees as busy", async () => {
    const carol = await connected("carol");
    const created = await call(carol, "crew_calendar_create", {
      title: "Acme sync",
      start: "2026-12-07T09:00:00+01:00",
      end: "2026-12-07T10:00:00+01:00",
      description: "Pricing, then next steps.",
      attendees: ["ada@example.com"],
    });
    expect(created.isError, firstText(created)).toBeFalsy();
    const body = created.structuredContent as { eventId: string; start: string; end: string };
    expect(body).toEqual({
      eventId: expect.stringMatching(/^crew-[a-z2-7]+$/),
      start: "2026-12-07T08:00:00+00:00",
      end: "2026-12-07T09:00:00+00:00",
    });

    const stored = await dav.listEvents(calendars.carol ?? "", "carol", PASSWORDS.carol);
    expect(stored).toHaveLength(1);
    const text = stored[0]?.replace(/\r\n /g, "") ?? "";
    expect(text).toContain(`UID:${body.eventId}`);
    expect(text).toContain("SUMMARY:Acme sync");
    expect(text).toContain("DTSTART:20261207T080000Z");
    expect(text).toContain("mailto:ada@example.com");

    const free = await call(carol, "crew_find_time", {
      durationMinutes: 60,
      timeZone: "Europe/Paris",
      from: "2026-12-07T09:00:00+01:00",
      count: 1,
    });
    expect(free.structuredContent).toMatchObject({ slots: [{ start: "2026-12-07T10:00:00+01:00" }] });

    // The same times again: a second event with its own id (tsdav's If-None-Match: * never overwrites).
    const twice = await call(carol, "crew_calendar_create", {
      title: "Acme sync",
      start: "2026-12-07T09:00:00+01:00",
      end: "2026-12-07T10:00:00+01:00",
    });
    expect((twice.structuredContent as { eventId: string }).eventId).not.toBe(body.eventId);
    expect(await dav.listEvents(calendars.carol ?? "", "carol", PASSWORDS.carol)).toHaveLength(2);
  });

  it("issue 11 item 3: a bare CR or CRLF in title or description injects no property and raises no alert", async () => {
    const erin = await connected("erin");
    const title = "Sync\rORGANIZER:mailto:evil@example.com\rATTACH:https://evil.example/x";
    const description = "Agenda\r\nATTACH:https://evil.example/y\r\nEND:VEVENT\nline three\u0000";
    const created = await call(erin, "crew_calendar_create", {
      title,
      description,
      start: "2026-12-08T09:00:00Z",
      end: "2026-12-08T10:00:00Z",
    });
    expect(created.isError, firstText(created)).toBeFalsy();
    const [stored, ...more] = await dav.listEvents(calendars.erin ?? "", "erin", PASSWORDS.erin);
    expect(more).toEqual([]);
    // listEvents gives what follows each BEGIN:VEVENT; the event ends at the first END:VEVENT line.
    const [body] = (stored ?? "").split(/\r\nEND:VEVENT\r\n/);
    const vevent = new ICAL.Component(ICAL.parse(`BEGIN:VEVENT${body}\r\nEND:VEVENT\r\n`) as unknown[]);
    expect(
      vevent
        ?.getAllProperties()
        .map((p) => p.name)
        .sort(),
    ).toEqual(["created", "description", "dtend", "dtstamp", "dtstart", "summary", "uid"]);
    expect(vevent?.getFirstPropertyValue("summary")).toBe("Sync\nORGANIZER:mailto:evil@example.com\nATTACH:https://evil.example/x");
    expect(vevent?.getFirstPropertyValue("description")).toBe("Agenda\nATTACH:https://evil.example/y\nEND:VEVENT\nline three");
    expect((await erin.rest("/api/mcp/agents")).json.integrationAlerts).toEqual([]);
  });
});

describe("a calendar that stops working", () => {
  it("raises one critical calendar alert when the server rejects the saved password, and resolves it after a later success", async () => {
    const dave = await connected("dave");
    const alerts = async () =>
      (await dave.rest("/api/mcp/agents")).json.integrationAlerts as { service: string; severity: string; message: string }[];
    expect((await call(dave, "crew_find_time", { durationMinutes: 30 })).isError).toBeFalsy();
    expect(await alerts()).toEqual([]);

    dav.setPassword("dave", "changed-elsewhere");
    try {
      const failed = await call(dave, "crew_find_time", { durationMinutes: 30 });
      expect(failed.isError).toBe(true);
      expect(errorJson(failed)).toMatchObject({ error: "calendar_credentials_rejected" });
      expect(firstText(failed)).toMatch(/rejected the username and password.*Reconnect it on the Calendar page/);
      const create = await call(dave, "crew_calendar_create", { title: "x", start: "2026-12-01T09:00:00Z", end: "2026-12-01T10:00:00Z" });
      expect(errorJson(create)).toMatchObject({ error: "calendar_credentials_rejected" });

      const open = await alerts();
      expect(open).toEqual([
        {
          service: "calendar",
          severity: "critical",
          message: expect.stringContaining("rejected the username and password"),
          flaggedAt: new Date(NOW).toISOString(),
        },
      ]);
      expect((await dave.rest("/api/integrations/calendar")).json.problem).toContain("rejected");
      // Only dave's: another user of the organization does not see it.
      const other = await crewUser();
      expect((await other.rest("/api/mcp/agents")).json.integrationAlerts).toEqual([]);
    } finally {
      dav.setPassword("dave", PASSWORDS.dave);
    }

    expect((await call(dave, "crew_find_time", { durationMinutes: 30 })).isError).toBeFalsy();
    expect(await alerts()).toEqual([]);
    expect((await dave.rest("/api/integrations/calendar")).json.problem).toBeNull();
  });

  it("raises the alert when the server cannot be reached or the stored connection cannot be used; disconnecting resolves it", async () => {
    const me = await connected("alice");
    const alerts = async () => (await me.rest("/api/mcp/agents")).json.integrationAlerts as { message: string }[];
    const closed = `http://127.0.0.1:${await freePort()}/alice/work/`;
    const stored = await s.db.one<{ config: string }>("SELECT config FROM integrations WHERE user_id = ?", [me.user.id]);
    await s.db.run("UPDATE integrations SET config = ? WHERE user_id = ?", [
      JSON.stringify({ ...JSON.parse(stored!.config), calendarUrl: closed }),
      me.user.id,
    ]);
    const unreachable = await call(me, "crew_find_time", { durationMinutes: 30 });
    expect(errorJson(unreachable)).toMatchObject({ error: "calendar_unreachable" });
    expect(firstText(unreachable)).toContain(`Could not reach the calendar server at ${new URL(closed).host}`);
    expect((await alerts()).map((a) => a.message)).toEqual([expect.stringContaining("Could not reach the calendar server")]);

    // A password sealed for another user does not open in this row.
    const other = await connected("bob");
    await s.db.execute({
      sql: `UPDATE integrations SET config = (SELECT config FROM integrations WHERE user_id = ? AND kind = 'calendar')
             WHERE user_id = ? AND kind = 'calendar'`,
      args: [other.user.id, me.user.id],
    });
    const unsealed = await call(me, "crew_calendar_create", { title: "x", start: "2026-12-01T09:00:00Z", end: "2026-12-01T10:00:00Z" });
    expect(errorJson(unsealed)).toMatchObject({ error: "calendar_unavailable" });
    expect((await alerts()).map((a) => a.message)).toEqual([expect.stringContaining("cannot be decrypted")]);

    expect((await me.rest("/api/integrations/calendar", { method: "DELETE" })).status).toBe(200);
    expect(await alerts()).toEqual([]);
  });
});

describe("issue 11 item 2: the CalDAV URL goes through the outbound policy", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startServer({ env: { ALLOW_PRIVATE_TARGETS: "false" }, clock: new ManualClock(NOW) });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it("refuses loopback, link-local and metadata addresses with the same error as a closed port, storing nothing", async () => {
    const { key } = await strict.userWithKey("operator", ["admin"]);
    const rest = api(strict.url, key);
    const connect = (url: string) => rest("/api/integrations/calendar", { body: { url, username: "alice", password: PASSWORDS.alice } });
    const texts: string[] = [];
    // Radicale answers on this loopback port with valid credentials: open, yet refused like the rest.
    const targets = [
      dav.url,
      `http://localhost:${new URL(dav.url).port}/`,
      "http://169.254.169.254/",
      "http://[::ffff:127.0.0.1]:1/",
      "http://[64:ff9b::7f00:1]/",
    ];
    for (const url of targets) {
      const reply = await connect(url);
      expect(reply.status, url).toBe(400);
      expect(reply.json, url).toMatchObject({ error: "calendar_unreachable", issues: [{ path: "url" }] });
      texts.push(reply.json.message.replace(new URL(url).host, "HOST"));
    }
    // A closed port (on the lenient server, where loopback is allowed): unreachable for real, the same words.
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const onLenient = await (await crewUser()).rest("/api/integrations/calendar", {
      body: { url: closed, username: "alice", password: "x" },
    });
    texts.push(onLenient.json.message.replace(new URL(closed).host, "HOST"));
    expect(new Set(texts).size, texts.join("\n")).toBe(1);
    const rows = await strict.db.one<{ n: number }>("SELECT count(*) AS n FROM integrations", []);
    expect(rows?.n).toBe(0);
  });
});
