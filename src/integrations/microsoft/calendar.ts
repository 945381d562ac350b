/**
 * Microsoft Graph calendar of a person (src/docs/notes/connections.md), plain fetch:
 * `/me/calendar/getSchedule` for busy time (crew_find_time: everything but free and
 * workingElsewhere counts), `/me/events` for a new event (Calendars.ReadWrite), `/me/calendarView`
 * for the calendar agent's week (occurrences of recurring events expanded by Graph). Times are
 * asked and read in UTC.
 */

import type { OpenConnection } from "../connections/access.ts";
import type { NewEvent } from "../connections/new-event.ts";
import type { Interval } from "../free-slots.ts";
import type { CalendarOccurrence } from "../icalendar.ts";

interface GraphTime {
  dateTime: string;
  timeZone?: string;
}

interface GraphEvent {
  id: string;
  iCalUId?: string;
  subject?: string;
  bodyPreview?: string;
  isAllDay?: boolean;
  isCancelled?: boolean;
  showAs?: string;
  start?: GraphTime;
  end?: GraphTime;
  location?: { displayName?: string };
  attendees?: { emailAddress?: { name?: string; address?: string } }[];
}

/** Graph's UTC date-times come without an offset ("2026-11-23T10:00:00.0000000"). */
const utc = (t: GraphTime | undefined) => {
  const text = t?.dateTime ?? "";
  return Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`);
};
const graphTime = (ms: number): GraphTime => ({ dateTime: new Date(ms).toISOString().replace(/Z$/, ""), timeZone: "UTC" });
const UTC_PREFER = { Prefer: 'outlook.timezone="UTC"' };

export async function graphBusy(conn: OpenConnection, range: Interval): Promise<Interval[]> {
  const answer = await conn.call<{ value?: { scheduleItems?: { status?: string; start?: GraphTime; end?: GraphTime }[] }[] }>(
    "/me/calendar/getSchedule",
    {
      method: "POST",
      headers: UTC_PREFER,
      body: { schedules: [conn.email], startTime: graphTime(range.start), endTime: graphTime(range.end), availabilityViewInterval: 15 },
    },
  );
  return (answer.value?.[0]?.scheduleItems ?? [])
    .filter((i) => i.status !== "free" && i.status !== "workingElsewhere")
    .map((i) => ({ start: utc(i.start), end: utc(i.end) }))
    .filter((i) => Number.isFinite(i.start) && Number.isFinite(i.end));
}

export async function graphCreateEvent(conn: OpenConnection, event: NewEvent): Promise<string> {
  const created = await conn.call<{ id: string }>("/me/events", {
    method: "POST",
    body: {
      subject: event.title,
      ...(event.description ? { body: { contentType: "text", content: event.description } } : {}),
      start: graphTime(event.start),
      end: graphTime(event.end),
      ...(event.attendees.length ? { attendees: event.attendees.map((address) => ({ emailAddress: { address }, type: "required" })) } : {}),
    },
  });
  return created.id;
}

export async function graphEvents(conn: OpenConnection, range: Interval, max: number): Promise<CalendarOccurrence[]> {
  const query = new URLSearchParams({
    startDateTime: new Date(range.start).toISOString(),
    endDateTime: new Date(range.end).toISOString(),
    $top: String(Math.min(Math.max(max, 1), 100)),
    $orderby: "start/dateTime",
  });
  const answer = await conn.call<{ value?: GraphEvent[] }>(`/me/calendarView?${query}`, { headers: UTC_PREFER });
  return (answer.value ?? [])
    .filter((e) => !e.isCancelled)
    .map((e) => ({
      uid: e.iCalUId ?? e.id,
      title: e.subject ?? "(no title)",
      start: utc(e.start),
      end: utc(e.end),
      allDay: Boolean(e.isAllDay),
      free: e.showAs === "free",
      location: e.location?.displayName || null,
      description: e.bodyPreview || null,
      attendees: (e.attendees ?? []).map((a) => a.emailAddress?.name ?? a.emailAddress?.address ?? "").filter(Boolean),
    }))
    .filter((e) => Number.isFinite(e.start) && Number.isFinite(e.end));
}
