/** The slot-finding policy and the zone arithmetic under it: pure functions, no server. */
import { describe, expect, it } from "vitest";
import { findSlots, type Interval, mergeIntervals, type SlotQuery } from "../../src/integrations/free-slots.ts";
import { isoInZone, localParts, zonedInstant } from "../../src/integrations/zoned-time.ts";

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);
const span = (start: string, end: string): Interval => ({ start: at(start), end: at(end) });

function slots(q: Partial<Omit<SlotQuery, "from" | "to">> & { from: string; to: string }, busy: Interval[] = []): string[] {
  const timeZone = q.timeZone ?? "UTC";
  const found = findSlots({
    durationMs: 30 * MIN,
    workingHours: { start: "09:00", end: "17:00" },
    count: 3,
    ...q,
    timeZone,
    from: at(q.from),
    to: at(q.to),
    busy,
  });
  return found.map((s) => `${isoInZone(timeZone, s.start)}/${isoInZone(timeZone, s.end).slice(11)}`);
}

describe("zone arithmetic", () => {
  it("turns wall-clock times into instants across DST changes", () => {
    // Europe/Paris: +01:00 in winter, +02:00 in summer; the change is at 02:00 local.
    expect(zonedInstant("Europe/Paris", { year: 2026, month: 11, day: 23 }, 9, 0)).toBe(at("2026-11-23T08:00:00Z"));
    expect(zonedInstant("Europe/Paris", { year: 2026, month: 7, day: 1 }, 9, 0)).toBe(at("2026-07-01T07:00:00Z"));
    // Spring forward: 02:30 does not exist and moves on by the gap, to 03:30 summer time.
    expect(zonedInstant("Europe/Paris", { year: 2026, month: 3, day: 29 }, 2, 30)).toBe(at("2026-03-29T01:30:00Z"));
    // Fall back: 02:30 happens twice; the first is taken.
    expect(zonedInstant("Europe/Paris", { year: 2026, month: 10, day: 25 }, 2, 30)).toBe(at("2026-10-25T00:30:00Z"));
    expect(zonedInstant("Asia/Kathmandu", { year: 2026, month: 1, day: 5 }, 9, 0)).toBe(at("2026-01-05T03:15:00Z"));
  });

  it("writes instants with the zone's offset at that instant", () => {
    expect(isoInZone("Europe/Paris", at("2026-11-23T08:00:00Z"))).toBe("2026-11-23T09:00:00+01:00");
    expect(isoInZone("Europe/Paris", at("2026-07-01T07:00:00Z"))).toBe("2026-07-01T09:00:00+02:00");
    expect(isoInZone("America/St_Johns", at("2026-01-05T12:30:00Z"))).toBe("2026-01-05T09:00:00-03:30");
    expect(isoInZone("UTC", at("2026-11-23T08:00:00Z"))).toBe("2026-11-23T08:00:00+00:00");
    expect(localParts("Pacific/Auckland", at("2026-11-22T23:00:00Z"))).toMatchObject({
      year: 2026,
      month: 11,
      day: 23,
      hour: 12,
      weekday: 1,
    });
  });
});

describe("findSlots", () => {
  it("returns the earliest back-to-back slots inside working hours", () => {
    // 2026-11-23 is a Monday.
    expect(slots({ from: "2026-11-23T00:00:00Z", to: "2026-11-30T00:00:00Z" })).toEqual([
      "2026-11-23T09:00:00+00:00/09:30:00+00:00",
      "2026-11-23T09:30:00+00:00/10:00:00+00:00",
      "2026-11-23T10:00:00+00:00/10:30:00+00:00",
    ]);
  });

  it("skips busy time, including events that overlap the edges of the working day and of the window", () => {
    const busy = [
      span("2026-11-23T08:30:00Z", "2026-11-23T09:20:00Z"), // over the start of the day
      span("2026-11-23T10:00:00Z", "2026-11-23T15:30:00Z"),
      span("2026-11-23T16:45:00Z", "2026-11-23T18:00:00Z"), // over the end of the day
    ];
    // 09:30–10:10 would run into the 10:00 meeting; after 15:30, 40 minutes fit once before 16:45.
    expect(slots({ from: "2026-11-23T00:00:00Z", to: "2026-11-24T00:00:00Z", durationMs: 40 * MIN, count: 10 }, busy)).toEqual([
      "2026-11-23T15:30:00+00:00/16:10:00+00:00",
    ]);
    // A window starting inside a meeting starts after it.
    expect(slots({ from: "2026-11-23T11:00:00Z", to: "2026-11-24T00:00:00Z", count: 1 }, busy)).toEqual([
      "2026-11-23T15:30:00+00:00/16:00:00+00:00",
    ]);
  });

  it("starts on a quarter-hour step, never before `from`, and stops at `to`", () => {
    expect(slots({ from: "2026-11-23T10:07:00Z", to: "2026-11-23T11:15:00Z", count: 5 })).toEqual([
      "2026-11-23T10:15:00+00:00/10:45:00+00:00",
      "2026-11-23T10:45:00+00:00/11:15:00+00:00",
    ]);
    // A meeting ending at 10:50 offers 11:00; one ending exactly at 11:00 leaves 11:00 free.
    expect(
      slots({ from: "2026-11-23T10:00:00Z", to: "2026-11-24T00:00:00Z", count: 1 }, [span("2026-11-23T09:00:00Z", "2026-11-23T10:50:00Z")]),
    ).toEqual(["2026-11-23T11:00:00+00:00/11:30:00+00:00"]);
    expect(
      slots({ from: "2026-11-23T10:00:00Z", to: "2026-11-24T00:00:00Z", count: 1 }, [span("2026-11-23T09:00:00Z", "2026-11-23T11:00:00Z")]),
    ).toEqual(["2026-11-23T11:00:00+00:00/11:30:00+00:00"]);
  });

  it("skips weekends by default; the working days are a parameter", () => {
    // Friday 2026-11-27 16:30 → the one slot left that day, then Monday.
    expect(slots({ from: "2026-11-27T16:30:00Z", to: "2026-12-05T00:00:00Z", durationMs: 30 * MIN, count: 2 })).toEqual([
      "2026-11-27T16:30:00+00:00/17:00:00+00:00",
      "2026-11-30T09:00:00+00:00/09:30:00+00:00",
    ]);
    expect(slots({ from: "2026-11-27T17:00:00Z", to: "2026-12-05T00:00:00Z", count: 1, workingDays: [0, 1, 2, 3, 4, 5, 6] })).toEqual([
      "2026-11-28T09:00:00+00:00/09:30:00+00:00",
    ]);
    expect(slots({ from: "2026-11-28T00:00:00Z", to: "2026-11-30T00:00:00Z" })).toEqual([]);
  });

  it("keeps working hours on the local clock across a DST weekend (Europe/Paris)", () => {
    // Summer time ends on Sunday 2026-10-25: Friday 09:00 is 07:00Z, Monday 09:00 is 08:00Z.
    expect(
      slots({
        timeZone: "Europe/Paris",
        from: "2026-10-23T16:00:00+02:00",
        to: "2026-10-28T00:00:00+01:00",
        durationMs: 60 * MIN,
        count: 2,
      }),
    ).toEqual(["2026-10-23T16:00:00+02:00/17:00:00+02:00", "2026-10-26T09:00:00+01:00/10:00:00+01:00"]);
  });

  it("gives a working day across a DST change its real length (America/New_York)", () => {
    const everyDay = [0, 1, 2, 3, 4, 5, 6];
    // Spring forward on Sunday 2026-03-08 at 02:00: 01:00–04:00 is two real hours.
    expect(
      slots({
        timeZone: "America/New_York",
        from: "2026-03-08T00:00:00-05:00",
        to: "2026-03-08T23:00:00-04:00",
        workingHours: { start: "01:00", end: "04:00" },
        workingDays: everyDay,
        durationMs: 60 * MIN,
        count: 10,
      }),
    ).toEqual(["2026-03-08T01:00:00-05:00/03:00:00-04:00", "2026-03-08T03:00:00-04:00/04:00:00-04:00"]);
    // Fall back on Sunday 2026-11-01 at 02:00: 00:00–03:00 is four real hours, 01:00 comes twice.
    expect(
      slots({
        timeZone: "America/New_York",
        from: "2026-11-01T00:00:00-04:00",
        to: "2026-11-01T23:00:00-05:00",
        workingHours: { start: "00:00", end: "03:00" },
        workingDays: everyDay,
        durationMs: 60 * MIN,
        count: 10,
      }),
    ).toEqual([
      "2026-11-01T00:00:00-04:00/01:00:00-04:00",
      "2026-11-01T01:00:00-04:00/01:00:00-05:00",
      "2026-11-01T01:00:00-05:00/02:00:00-05:00",
      "2026-11-01T02:00:00-05:00/03:00:00-05:00",
    ]);
  });

  it("finds nothing when busy all week, or when the window is empty", () => {
    expect(
      slots({ from: "2026-11-23T00:00:00Z", to: "2026-11-30T00:00:00Z" }, [span("2026-11-22T00:00:00Z", "2026-12-01T00:00:00Z")]),
    ).toEqual([]);
    expect(slots({ from: "2026-11-23T12:00:00Z", to: "2026-11-23T12:00:00Z" })).toEqual([]);
    expect(slots({ from: "2026-11-23T16:50:00Z", to: "2026-11-24T00:00:00Z" })).toEqual([]);
  });

  it("merges overlapping and touching busy intervals", () => {
    expect(
      mergeIntervals([
        span("2026-11-23T11:00:00Z", "2026-11-23T12:00:00Z"),
        span("2026-11-23T09:00:00Z", "2026-11-23T10:00:00Z"),
        span("2026-11-23T10:00:00Z", "2026-11-23T11:30:00Z"),
      ]),
    ).toEqual([span("2026-11-23T09:00:00Z", "2026-11-23T12:00:00Z")]);
  });
});
