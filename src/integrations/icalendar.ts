/**
 * iCalendar in and out, with ical.js: the busy time of a calendar's events within a range (every
 * occurrence of recurring events expanded here, since servers such as Radicale 3.1 ignore the
 * CalDAV `expand` request and answer no free-busy query), and the VEVENT Crew writes.
 */
import ICAL from "ical.js";
import { isValidTimeZone } from "../config.ts";
import type { Interval } from "./free-slots.ts";
import { zonedInstant } from "./zoned-time.ts";

type Time = InstanceType<typeof ICAL.Time>;
type Component = InstanceType<typeof ICAL.Component>;
type Event = InstanceType<typeof ICAL.Event>;

/** More than any zone's offset from UTC (the extremes are −12:00 and +14:00). */
const SLACK_MS = 2 * 86_400_000;

const wallClock = (t: Time) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

const knownZones = new Map<string, boolean>();
function isZone(tzid: string): boolean {
  const known = knownZones.get(tzid);
  if (known !== undefined) return known;
  const valid = isValidTimeZone(tzid);
  if (knownZones.size >= 1000) knownZones.clear(); // TZIDs come from calendars: keep the memo bounded
  knownZones.set(tzid, valid);
  return valid;
}

/**
 * Occurrences looked at per query, across all its events: a calendar whose rules would expand to
 * more (RRULE:FREQ=SECONDLY, or thousands of events) is answered within this budget, and the
 * events it cuts short count as busy for the rest of the window (never a slot that may clash).
 */
export const OCCURRENCE_BUDGET = 20_000;
/** The longest run of expansion between two yields to the event loop, in ms of wall time. */
const SLICE_MS = 3;

/** Lets other requests run: expansion is CPU work on the one event loop every request shares. */
const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Frequencies whose periods have a fixed wall-clock length, in seconds (RFC 5545 §3.3.10). */
const FIXED_PERIOD_S: Record<string, number> = { SECONDLY: 1, MINUTELY: 60, HOURLY: 3600, DAILY: 86_400, WEEKLY: 604_800 };

/**
 * Where to start expanding a recurring event so that only occurrences near the window are
 * visited: DTSTART moved forward by whole periods of its rule (same wall-clock grid, so the same
 * occurrences), to before the window by more than an occurrence's length. Only for one RRULE of a
 * fixed-length frequency without COUNT (COUNT counts from the real DTSTART). The moved DTSTART is
 * itself emitted by the expansion, but it lies before the window, so it is skipped.
 */
function expansionStart(event: Event, windowStartWall: number): Time | undefined {
  const rules = event.component.getAllProperties("rrule");
  if (rules.length !== 1) return undefined;
  const rule = rules[0]?.getFirstValue() as { freq?: string; interval?: number; count?: number | null } | undefined;
  const unit = rule?.freq ? FIXED_PERIOD_S[rule.freq] : undefined;
  if (!rule || !unit || rule.count) return undefined;
  const periodMs = unit * Math.max(1, rule.interval ?? 1) * 1000;
  const start = event.startDate;
  const periods = Math.floor((windowStartWall - periodMs - wallClock(start)) / periodMs);
  if (periods <= 0) return undefined;
  // Set from the wall-clock fields: ical.js leaves an added duration unnormalized (2,500 days in
  // the day field), and its rule iterator then walks those days one by one.
  const wall = new Date(wallClock(start) + periods * periodMs);
  const moved = start.clone();
  moved.resetTo(
    wall.getUTCFullYear(),
    wall.getUTCMonth() + 1,
    wall.getUTCDate(),
    wall.getUTCHours(),
    wall.getUTCMinutes(),
    wall.getUTCSeconds(),
    start.zone,
  );
  return moved;
}

/**
 * The instant an iCalendar time stands for. Named IANA zones are converted with Intl (correct
 * across DST whatever the VTIMEZONE says); other zones by their VTIMEZONE; floating times and
 * dates are the user's wall clock.
 */
export function instantOf(t: Time, userTimeZone: string, tzidHint?: string): number {
  const date = { year: t.year, month: t.month, day: t.day };
  if (t.isDate) return zonedInstant(userTimeZone, date);
  // A TZID without a VTIMEZONE in the object leaves no zone on the time, and occurrences of a
  // recurring event do not keep the name either: the property's TZID parameter is the hint.
  const named = t.zone?.tzid && t.zone.tzid !== "floating" ? t.zone.tzid : undefined;
  const tzid = named ?? (t as unknown as { timezone?: string }).timezone ?? tzidHint;
  if (tzid === "UTC" || tzid === "Z") return t.toUnixTime() * 1000;
  if (tzid && tzid !== "floating" && isZone(tzid)) return zonedInstant(tzid, date, t.hour, t.minute) + t.second * 1000;
  if (named) return t.toUnixTime() * 1000; // a zone defined by a VTIMEZONE of the object only
  return zonedInstant(userTimeZone, date, t.hour, t.minute) + t.second * 1000;
}

function tzidOf(item: Event, property: "dtstart" | "dtend"): string | undefined {
  const tzid = item.component.getFirstProperty(property)?.getParameter("tzid");
  return typeof tzid === "string" ? tzid : undefined;
}

/** Whether an occurrence takes time: cancelled and transparent ("free") events do not. */
function blocksTime(item: Event): boolean {
  const status = String(item.component.getFirstPropertyValue("status") ?? "").toUpperCase();
  const transp = String(item.component.getFirstPropertyValue("transp") ?? "").toUpperCase();
  return status !== "CANCELLED" && transp !== "TRANSPARENT";
}

/** The VCALENDARs of one text (usually one); none when it cannot be read. */
function parseCalendars(text: string): Component[] {
  try {
    const parsed = ICAL.parse(text) as unknown[];
    const list = Array.isArray(parsed[0]) ? (parsed as unknown[][]) : [parsed];
    return list.map((jcal) => new ICAL.Component(jcal));
  } catch {
    return []; // one unreadable object must not hide the rest of the calendar
  }
}

/** The VEVENTs of one calendar object, grouped by UID: a master and its modified occurrences. */
function eventsOf(calendar: Component): Event[] {
  const byUid = new Map<string, { master: Component | null; exceptions: Component[] }>();
  for (const vevent of calendar.getAllSubcomponents("vevent")) {
    const uid = String(vevent.getFirstPropertyValue("uid") ?? "");
    const group = byUid.get(uid) ?? { master: null, exceptions: [] };
    if (vevent.hasProperty("recurrence-id")) group.exceptions.push(vevent);
    else group.master = vevent;
    byUid.set(uid, group);
  }
  const events: Event[] = [];
  for (const { master, exceptions } of byUid.values()) {
    if (master) events.push(new ICAL.Event(master, { exceptions }));
    // Modified occurrences of a master the server did not send: each stands alone.
    else for (const ex of exceptions) events.push(new ICAL.Event(ex));
  }
  return events;
}

/** One occurrence of an event: the event (or its modified occurrence) and its times. */
type Visit = (item: Event, start: Time, end: Time) => void;

/**
 * Visits the occurrences of the events of raw iCalendar objects (one VCALENDAR text each) near
 * `range` (callers compare exactly). Unreadable objects and events are skipped. Recurring events
 * are expanded only near the range, within one occurrence budget for the whole query, yielding to
 * the event loop between slices; `outOfBudget` gets an event cut short and the earliest instant it
 * was not looked at from.
 */
async function forEachOccurrence(
  objects: readonly string[],
  range: Interval,
  budget: number,
  visit: Visit,
  outOfBudget: (event: Event, from: number) => void,
): Promise<void> {
  let occurrences = 0;
  // A CPU-time slice, not a business time: measured with performance.now, not the injected clock.
  let sliceStart = performance.now();
  /** After each step of work (an object read, an occurrence looked at): yield once the slice is spent. */
  const tick = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await yieldToLoop();
    sliceStart = performance.now();
  };
  for (const text of objects) {
    await tick();
    for (const event of parseCalendars(text).flatMap(eventsOf)) {
      try {
        if (!event.isRecurring()) {
          if (event.startDate) visit(event, event.startDate, event.endDate);
          continue;
        }
        // A modified occurrence may be moved anywhere, even from outside the range into it.
        // ical.js keeps them in an object keyed by RECURRENCE-ID (typed as an array).
        for (const ex of Object.values(event.exceptions)) visit(ex, ex.startDate, ex.endDate);
        // Occurrences are compared by wall-clock time first (within a zone's offset of the
        // instant): only those near the range are converted.
        const lead = event.duration.toSeconds() * 1000 + SLACK_MS;
        const iterator = event.iterator(expansionStart(event, range.start - lead));
        let reached = range.start;
        for (;;) {
          await tick();
          if (++occurrences > budget) {
            outOfBudget(event, Math.max(range.start, reached));
            break;
          }
          const next = iterator.next();
          if (!next) break;
          const wall = wallClock(next);
          if (wall - SLACK_MS >= range.end) break;
          if (wall + lead <= range.start) continue;
          reached = wall - SLACK_MS;
          const details = event.getOccurrenceDetails(next);
          visit(details.item, details.startDate, details.endDate);
        }
      } catch {
        // An event ical.js cannot expand (a malformed rule): skip it, keep the others.
      }
    }
  }
}

/** The instants of an occurrence, each zone as its property names it. */
function instantsOf(item: Event, start: Time, end: Time, userTimeZone: string): Interval {
  const startZone = tzidOf(item, "dtstart");
  return { start: instantOf(start, userTimeZone, startZone), end: instantOf(end, userTimeZone, tzidOf(item, "dtend") ?? startZone) };
}

/**
 * Busy intervals overlapping `range`, from raw iCalendar objects (one VCALENDAR text each).
 * Unreadable objects and events are skipped. Recurring events are expanded only near the range,
 * within one occurrence budget for the whole query, yielding to the event loop between slices.
 */
export async function busyIntervals(
  objects: readonly string[],
  range: Interval,
  userTimeZone: string,
  budget = OCCURRENCE_BUDGET,
): Promise<Interval[]> {
  const busy: Interval[] = [];
  const seen = new Set<string>();
  const add: Visit = (item, start, end) => {
    if (!blocksTime(item)) return;
    const { start: s, end: e } = instantsOf(item, start, end, userTimeZone);
    if (e <= range.start || s >= range.end || e <= s || seen.has(`${s}/${e}`)) return;
    seen.add(`${s}/${e}`);
    busy.push({ start: s, end: e });
  };
  // Out of budget: what the event would still cover is taken as busy, so no slot offered can
  // clash with an occurrence that was not looked at.
  await forEachOccurrence(objects, range, budget, add, (event, from) => {
    if (blocksTime(event)) busy.push({ start: from, end: range.end });
  });
  return busy;
}

/** An occurrence of an event as the calendar agent reads it (src/docs/notes/calendar.md). */
export interface CalendarOccurrence {
  uid: string;
  title: string;
  start: number;
  end: number;
  allDay: boolean;
  /** Marked free (TRANSP:TRANSPARENT): shown, but it takes no time. */
  free: boolean;
  location: string | null;
  description: string | null;
  /** Attendees' names or addresses. */
  attendees: string[];
  /** The organizer's address (RFC 5545 §3.8.4.3), lower-case: whether the invitation is internal input. */
  organizer?: string;
}

const textValue = (item: Event, name: string) => {
  const value = item.component.getFirstPropertyValue(name);
  return typeof value === "string" && value.trim() ? value.trim() : null;
};

/**
 * The occurrences overlapping `range`, earliest first, cancelled ones left out; recurring events
 * expanded near the range like busyIntervals (same budget: what it cuts short is not listed).
 */
export async function occurrencesIn(
  objects: readonly string[],
  range: Interval,
  userTimeZone: string,
  budget = OCCURRENCE_BUDGET,
): Promise<CalendarOccurrence[]> {
  const found = new Map<string, CalendarOccurrence>();
  await forEachOccurrence(
    objects,
    range,
    budget,
    (item, start, end) => {
      if (String(item.component.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED") return;
      const at = instantsOf(item, start, end, userTimeZone);
      if (at.end <= range.start || at.start >= range.end || at.end < at.start) return;
      const uid = String(item.component.getFirstPropertyValue("uid") ?? "");
      const key = `${uid}/${at.start}`;
      if (found.has(key)) return;
      found.set(key, {
        uid,
        title: textValue(item, "summary") ?? "(no title)",
        start: at.start,
        end: at.end,
        allDay: start.isDate,
        free: !blocksTime(item),
        location: textValue(item, "location"),
        description: textValue(item, "description"),
        attendees: item.component.getAllProperties("attendee").map((p) => {
          const cn = p.getParameter("cn");
          return typeof cn === "string" && cn.trim() ? cn.trim() : String(p.getFirstValue() ?? "").replace(/^mailto:/i, "");
        }),
        ...organizerOf(item),
      });
    },
    () => {},
  );
  return [...found.values()].sort((a, b) => a.start - b.start || a.uid.localeCompare(b.uid));
}

function organizerOf(item: Event): { organizer?: string } {
  const value = item.component.getFirstPropertyValue("organizer");
  const email =
    typeof value === "string"
      ? value
          .replace(/^mailto:/i, "")
          .trim()
          .toLowerCase()
      : "";
  return email.includes("@") ? { organizer: email } : {};
}

export interface NewEvent {
  uid: string;
  title: string;
  start: number;
  end: number;
  description?: string;
  attendees?: readonly string[];
  organizer?: { email: string; name: string };
  now: number;
}

/**
 * A TEXT value as RFC 5545 §3.3.11 allows it: any line break becomes "\n" (which ical.js escapes),
 * other control characters go. ical.js escapes LF but not a bare CR, and a CR is a line end to
 * many parsers: left in, it would start a new property (a forged ORGANIZER, an ATTACH).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const text = (value: string) => value.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
/** A parameter value (RFC 5545 §3.2: no control characters, no DQUOTE). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const paramText = (value: string) => value.replace(/[\u0000-\u001f\u007f"]/g, " ").trim();

const utcTime = (ms: number) => ICAL.Time.fromJSDate(new Date(Math.floor(ms / 1000) * 1000), true);

/** A VCALENDAR holding one VEVENT, times in UTC. */
export function eventCalendar(e: NewEvent): string {
  const calendar = new ICAL.Component(["vcalendar", [], []]);
  calendar.updatePropertyWithValue("prodid", "-//Crew//Crew 1.0//EN");
  calendar.updatePropertyWithValue("version", "2.0");
  const vevent = new ICAL.Component("vevent");
  const event = new ICAL.Event(vevent);
  event.uid = e.uid;
  vevent.updatePropertyWithValue("dtstamp", utcTime(e.now));
  vevent.updatePropertyWithValue("created", utcTime(e.now));
  event.startDate = utcTime(e.start);
  event.endDate = utcTime(e.end);
  event.summary = text(e.title);
  if (e.description) event.description = text(e.description);
  if (e.organizer && e.attendees && e.attendees.length > 0) {
    // RFC 5545 §3.8.4.3: an event with attendees names its organizer.
    const organizer = vevent.addPropertyWithValue("organizer", `mailto:${e.organizer.email}`);
    organizer.setParameter("cn", paramText(e.organizer.name));
  }
  for (const email of e.attendees ?? []) {
    const attendee = vevent.addPropertyWithValue("attendee", `mailto:${email}`);
    attendee.setParameter("role", "REQ-PARTICIPANT");
    attendee.setParameter("partstat", "NEEDS-ACTION");
    attendee.setParameter("rsvp", "TRUE");
  }
  calendar.addSubcomponent(vevent);
  return calendar.toString();
}
