/** Busy time from iCalendar objects (recurrences expanded by Crew), the VEVENT Crew writes, and sealed credentials. */
import { describe, expect, it } from "vitest";
import { busyIntervals, eventCalendar } from "../../src/integrations/icalendar.ts";
import { open, SecretBoxError, seal } from "../../src/integrations/secret-box.ts";

const at = (iso: string) => Date.parse(iso);
const NOV = { start: at("2026-11-01T00:00:00Z"), end: at("2026-12-01T00:00:00Z") };

const calendar = (...events: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//test//EN", ...events, "END:VCALENDAR", ""].join("\r\n");
const vevent = (...lines: string[]) => ["BEGIN:VEVENT", "DTSTAMP:20261101T000000Z", ...lines, "END:VEVENT"].join("\r\n");

const show = (intervals: { start: number; end: number }[]) =>
  intervals.map((i) => `${new Date(i.start).toISOString()}/${new Date(i.end).toISOString()}`).sort();

const PARIS_TZ = [
  "BEGIN:VTIMEZONE",
  "TZID:Europe/Paris",
  "BEGIN:DAYLIGHT",
  "TZOFFSETFROM:+0100",
  "TZOFFSETTO:+0200",
  "TZNAME:CEST",
  "DTSTART:19700329T020000",
  "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
  "END:DAYLIGHT",
  "BEGIN:STANDARD",
  "TZOFFSETFROM:+0200",
  "TZOFFSETTO:+0100",
  "TZNAME:CET",
  "DTSTART:19701025T030000",
  "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
  "END:STANDARD",
  "END:VTIMEZONE",
].join("\r\n");

describe("busyIntervals", () => {
  it("expands a weekly event across the DST change, honouring EXDATE and a moved occurrence", async () => {
    const text = calendar(
      PARIS_TZ,
      vevent(
        "UID:weekly",
        "DTSTART;TZID=Europe/Paris:20261020T100000",
        "DTEND;TZID=Europe/Paris:20261020T110000",
        "RRULE:FREQ=WEEKLY;BYDAY=TU",
        "EXDATE;TZID=Europe/Paris:20261110T100000",
      ),
      vevent("UID:weekly", "RECURRENCE-ID;TZID=Europe/Paris:20261117T100000", "DTSTART:20261118T150000Z", "DTEND:20261118T160000Z"),
    );
    expect(show(await busyIntervals([text], NOV, "UTC"))).toEqual([
      "2026-11-03T09:00:00.000Z/2026-11-03T10:00:00.000Z", // 10:00 Paris is 09:00Z after the change
      "2026-11-18T15:00:00.000Z/2026-11-18T16:00:00.000Z", // the 17th, moved
      "2026-11-24T09:00:00.000Z/2026-11-24T10:00:00.000Z",
    ]);
  });

  it("reads a TZID without its VTIMEZONE by the IANA name, and floating times on the user's clock", async () => {
    const text = calendar(
      vevent("UID:named", "DTSTART;TZID=America/New_York:20261102T090000", "DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=2"),
      vevent("UID:floating", "DTSTART:20261105T140000", "DTEND:20261105T150000"),
    );
    expect(show(await busyIntervals([text], NOV, "Europe/Paris"))).toEqual([
      "2026-11-02T14:00:00.000Z/2026-11-02T14:30:00.000Z",
      "2026-11-03T14:00:00.000Z/2026-11-03T14:30:00.000Z",
      "2026-11-05T13:00:00.000Z/2026-11-05T14:00:00.000Z",
    ]);
  });

  it("blocks all-day events for whole local days; ignores free, cancelled and out-of-range events", async () => {
    const text = calendar(
      vevent("UID:offsite", "DTSTART;VALUE=DATE:20261124", "DTEND;VALUE=DATE:20261126"),
      vevent("UID:birthday", "DTSTART;VALUE=DATE:20261110", "TRANSP:TRANSPARENT"),
      vevent("UID:cancelled", "DTSTART:20261112T090000Z", "DTEND:20261112T100000Z", "STATUS:CANCELLED"),
      vevent("UID:december", "DTSTART:20261202T090000Z", "DTEND:20261202T100000Z"),
    );
    expect(show(await busyIntervals([text, "not iCalendar at all"], NOV, "Europe/Paris"))).toEqual([
      "2026-11-23T23:00:00.000Z/2026-11-25T23:00:00.000Z",
    ]);
  });

  it("stops a never-ending daily rule at the end of the range", async () => {
    const text = calendar(vevent("UID:standup", "DTSTART:20200106T090000Z", "DURATION:PT15M", "RRULE:FREQ=DAILY"));
    const busy = await busyIntervals([text], { start: at("2026-11-23T00:00:00Z"), end: at("2026-11-25T00:00:00Z") }, "UTC");
    expect(show(busy)).toEqual(["2026-11-23T09:00:00.000Z/2026-11-23T09:15:00.000Z", "2026-11-24T09:00:00.000Z/2026-11-24T09:15:00.000Z"]);
  });
});

describe("eventCalendar", () => {
  it("writes one VEVENT in UTC with escaped text, organizer and attendees, which reads back as busy", async () => {
    const ics = eventCalendar({
      uid: "crew-abc",
      title: "Acme sync, part 2; final",
      start: at("2026-11-23T09:00:00Z"),
      end: at("2026-11-23T09:30:00Z"),
      description: "Agenda:\nprice",
      attendees: ["ada@example.com", "bob@example.com"],
      organizer: { email: "me@example.com", name: "Me" },
      now: at("2026-11-22T09:00:00Z"),
    });
    expect(ics).toContain("BEGIN:VEVENT\r\nUID:crew-abc\r\n");
    expect(ics).toContain("DTSTART:20261123T090000Z\r\n");
    expect(ics).toContain("DTEND:20261123T093000Z\r\n");
    expect(ics).toContain("DTSTAMP:20261122T090000Z\r\n");
    expect(ics).toContain("SUMMARY:Acme sync\\, part 2\\; final\r\n");
    expect(ics).toContain("DESCRIPTION:Agenda:\\nprice\r\n");
    expect(ics).toContain("ORGANIZER;CN=Me:mailto:me@example.com\r\n");
    expect(ics.replace(/\r\n /g, "")).toContain("ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com");
    expect(show(await busyIntervals([ics], NOV, "UTC"))).toEqual(["2026-11-23T09:00:00.000Z/2026-11-23T09:30:00.000Z"]);
  });
});

describe("sealed credentials", () => {
  const secret = "a-test-secret-of-at-least-32-characters";

  it("encrypts with a fresh IV each time, as versioned text, and opens only with the same secret and purpose", async () => {
    const one = await seal(secret, "hunter2 – ünïcode", "calendar:usr_1");
    const two = await seal(secret, "hunter2 – ünïcode", "calendar:usr_1");
    expect(one).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain("hunter2");
    expect(await open(secret, one, "calendar:usr_1")).toBe("hunter2 – ünïcode");
    await expect(open(secret, one, "calendar:usr_2")).rejects.toThrow(SecretBoxError);
    await expect(open(`${secret}-other`, one, "calendar:usr_1")).rejects.toThrow(SecretBoxError);
    const [v, iv, data] = one.split(".");
    const flipped = `${v}.${iv}.${data?.startsWith("A") ? "B" : "A"}${data?.slice(1)}`;
    await expect(open(secret, flipped, "calendar:usr_1")).rejects.toThrow(SecretBoxError);
    await expect(open(secret, "plaintext", "calendar:usr_1")).rejects.toThrow(SecretBoxError);
  });
});

describe("busyIntervals against hostile rules", () => {
  const WINDOW = { start: at("2026-11-23T00:00:00Z"), end: at("2026-11-30T00:00:00Z") };

  it("expands a never-ending every-15-minutes rule from 2020 only near the window", async () => {
    const text = calendar(vevent("UID:quarter", "DTSTART:20200106T090000Z", "DURATION:PT5M", "RRULE:FREQ=MINUTELY;INTERVAL=15;BYHOUR=9"));
    const busy = await busyIntervals([text], { start: at("2026-11-23T00:00:00Z"), end: at("2026-11-24T00:00:00Z") }, "UTC");
    expect(show(busy)).toEqual([
      "2026-11-23T09:00:00.000Z/2026-11-23T09:05:00.000Z",
      "2026-11-23T09:15:00.000Z/2026-11-23T09:20:00.000Z",
      "2026-11-23T09:30:00.000Z/2026-11-23T09:35:00.000Z",
      "2026-11-23T09:45:00.000Z/2026-11-23T09:50:00.000Z",
    ]);
  });

  it("answers 20 FREQ=SECONDLY events within one budget, counting what it could not look at as busy", async () => {
    const hostile = Array.from({ length: 20 }, (_, i) =>
      calendar(vevent(`UID:flood-${i}`, "DTSTART:20200101T000000Z", "DURATION:PT1S", "RRULE:FREQ=SECONDLY")),
    );
    const busy = await busyIntervals(hostile, WINDOW, "UTC", 2_000);
    // No free minute is claimed inside the window: the rule covers it all, and so does the answer.
    expect(busy.some((b) => b.start <= WINDOW.start + 2_000 && b.end === WINDOW.end)).toBe(true);
  });
});
