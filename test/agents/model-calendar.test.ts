/**
 * The calendar agent reads the calendars (src/docs/notes/calendar.md) against a real Radicale 3.1.8,
 * with a scripted OpenAI-compatible model server on loopback standing in for the model: the next
 * 7 days of the calendars the organization's users connected (owners first), a weekly meeting
 * that began months ago expanded to its one occurrence in the window, nothing later than 7 days or
 * cancelled, a meeting on two calendars once; handed over as untrusted data under `e` handles, and
 * a suggestion citing one carries it as `calendar_event` evidence.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runModelAgent } from "../../src/agents/model-run.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { type Radicale, startRadicale } from "../helpers/radicale.ts";
import { handlesIn, modelEnv, type RecordedRequest, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

// Monday 2026-11-23, 07:00 UTC.
const NOW = Date.parse("2026-11-23T07:00:00Z");
const PASSWORDS = { alice: "alice-pw", bob: "bob-pw" } as const;

let dav: Radicale;
let model: ScriptedModel;
let s: TestServer;
let names: { owner: string; member: string };

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

const eventsOf = (r: RecordedRequest | undefined) =>
  JSON.parse(/<data name="calendar_events" untrusted="true">\n(.*)\n<\/data>/.exec(r?.messages[0]?.text ?? "")?.[1] ?? "null");

beforeAll(async () => {
  [dav, model] = await Promise.all([startRadicale({ ...PASSWORDS }), startScriptedModel()]);
  s = await startServer({ clock: new ManualClock(NOW), env: modelEnv(model) });
  const alice = await dav.makeCalendar("alice", PASSWORDS.alice);
  const bob = await dav.makeCalendar("bob", PASSWORDS.bob);
  const put = (cal: string, user: keyof typeof PASSWORDS, uid: string, ...lines: string[]) =>
    dav.putEvent(cal, user, PASSWORDS[user], uid, event(uid, ...lines));
  await put(alice, "alice", "board-1", "SUMMARY:Board meeting", "DTSTART:20261124T090000Z", "DTEND:20261124T110000Z", "LOCATION:HQ");
  // Weekly since August: only its Thursday 26 November occurrence is in the window.
  await put(alice, "alice", "sync-1", "SUMMARY:Team sync", "DTSTART:20260806T080000Z", "DTEND:20260806T083000Z", "RRULE:FREQ=WEEKLY");
  await put(alice, "alice", "offsite-1", "SUMMARY:Offsite", "DTSTART:20261203T090000Z", "DTEND:20261203T170000Z");
  await put(alice, "alice", "gone-1", "SUMMARY:Cancelled lunch", "STATUS:CANCELLED", "DTSTART:20261125T120000Z", "DTEND:20261125T130000Z");
  await put(alice, "alice", "demo-1", "SUMMARY:Demo with Orbital", "DTSTART:20261127T140000Z", "DTEND:20261127T150000Z");
  // The same demo on the member's calendar (one event), and one of their own.
  await put(bob, "bob", "demo-1", "SUMMARY:Demo with Orbital", "DTSTART:20261127T140000Z", "DTEND:20261127T150000Z");
  await put(
    bob,
    "bob",
    "hiring-1",
    "SUMMARY:Interview",
    "DESCRIPTION:Candidate for the CTO role",
    "DTSTART:20261125T100000Z",
    "DTEND:20261125T110000Z",
  );

  // A member connects first, the owner second: the owner's calendar is still read first.
  const member = await s.createUser("operator", "bob@example.com", "member");
  const owner = await s.createUser("operator", "alice@example.com", "owner");
  names = { owner: owner.name, member: member.name };
  for (const [user, davUser] of [
    [member, "bob"],
    [owner, "alice"],
  ] as const) {
    const reply = await api(s.url, await s.createKey(user, ["admin"]))("/api/integrations/calendar", {
      body: { url: dav.url, username: davUser, password: PASSWORDS[davUser] },
    });
    expect(reply.status, reply.text).toBe(200);
    s.clock.advance(1000);
  }
}, 30_000);

afterAll(async () => {
  await s?.close();
  await model?.close();
  await dav?.stop();
});

describe("the calendar agent reads the connected calendars (real Radicale, scripted model server)", () => {
  it("hands over the next 7 days of events as untrusted data with handles; a suggestion citing one has calendar_event evidence", async () => {
    model.script((r) => ({
      object: {
        summary: "A busy week",
        suggestions: [{ title: "Prepare the board deck", priority: "high", evidence: [handlesIn(r, "e")[0]] }],
      },
    }));
    const run = await runModelAgent(s.deps, s.org, "calendar");
    expect(run).toMatchObject({ status: "ok", summary: "Stored 1 suggestion." });

    const events = eventsOf(model.requests.at(-1));
    expect(events.map((e: { title: string; start: string; calendar: string }) => [e.title, e.start, e.calendar])).toEqual([
      ["Board meeting", "2026-11-24T09:00:00.000Z", `${names.owner}'s calendar`],
      ["Interview", "2026-11-25T10:00:00.000Z", `${names.member}'s calendar`],
      ["Team sync", "2026-11-26T08:00:00.000Z", `${names.owner}'s calendar`],
      // On both calendars: once, as the owner's (read first).
      ["Demo with Orbital", "2026-11-27T14:00:00.000Z", `${names.owner}'s calendar`],
    ]);
    expect(events[0]).toMatchObject({ handle: "e1", end: "2026-11-24T11:00:00.000Z", location: "HQ", allDay: false });
    expect(events[1].description).toBe("Candidate for the CTO role");

    const suggestions = (await api(s.url, await s.createKey(await s.createUser("operator"), ["admin"]))("/api/mcp/suggestions")).json
      .suggestions;
    expect(suggestions).toEqual([
      expect.objectContaining({
        title: "Prepare the board deck",
        evidence: [
          // The owner's own event, with no organizer (src/docs/notes/prompt-injection.md#provenance): internal.
          {
            kind: "calendar_event",
            ref: "board-1",
            title: `Board meeting — 2026-11-24T09:00:00.000Z (${names.owner}'s calendar)`,
            trust: "internal",
          },
        ],
      }),
    ]);
  });
});
