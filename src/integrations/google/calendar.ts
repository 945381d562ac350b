/**
 * Google Calendar API v3 on a person's primary calendar (src/docs/notes/connections.md), plain
 * fetch: `freeBusy.query` for busy time (crew_find_time), `events.insert` for a new event
 * (crew_calendar_create; scope calendar.events), `events.list` with singleEvents=true for the
 * calendar agent's week (recurring events come expanded).
 */

import type { OpenConnection } from "../connections/access.ts";
import type { NewEvent } from "../connections/new-event.ts";
import type { Interval } from "../free-slots.ts";
import type { CalendarOccurrence } from "../icalendar.ts";

interface GoogleTime {
  dateTime?: string;
  date?: string;
}

interface GoogleEvent {
  id: string;
  iCalUID?: string;
  status?: string;
  summary?: string;
  description?: string;
  location?: string;
  transparency?: string;
  start?: GoogleTime;
  end?: GoogleTime;
  attendees?: { email?: string; displayName?: string; self?: boolean }[];
}

const BASE = "/calendar/v3";
const at = (t: GoogleTime | undefined) => Date.parse(t?.dateTime ?? (t?.date ? `${t.date}T00:00:00Z` : ""));

export async function googleBusy(conn: OpenConnection, range: Interval): Promise<Interval[]> {
  const answer = await conn.call<{ calendars?: Record<string, { busy?: { start: string; end: string }[] }> }>(`${BASE}/freeBusy`, {
    method: "POST",
    body: { timeMin: new Date(range.start).toISOString(), timeMax: new Date(range.end).toISOString(), items: [{ id: "primary" }] },
  });
  return (answer.calendars?.primary?.busy ?? []).map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) }));
}

export async function googleCreateEvent(conn: OpenConnection, event: NewEvent): Promise<string> {
  const created = await conn.call<{ id: string }>(`${BASE}/calendars/primary/events`, {
    method: "POST",
    body: {
      summary: event.title,
      ...(event.description ? { description: event.description } : {}),
      start: { dateTime: new Date(event.start).toISOString() },
      end: { dateTime: new Date(event.end).toISOString() },
      ...(event.attendees.length ? { attendees: event.attendees.map((email) => ({ email })) } : {}),
    },
  });
  return created.id;
}

export async function googleEvents(conn: OpenConnection, range: Interval, max: number): Promise<CalendarOccurrence[]> {
  const query = new URLSearchParams({
    timeMin: new Date(range.start).toISOString(),
    timeMax: new Date(range.end).toISOString(),
    singleEvents: "true",
    orderBy: "startTime",
    maxResults: String(Math.min(Math.max(max, 1), 250)),
  });
  const answer = await conn.call<{ items?: GoogleEvent[] }>(`${BASE}/calendars/primary/events?${query}`);
  return (answer.items ?? [])
    .filter((e) => e.status !== "cancelled")
    .map((e) => ({
      uid: e.iCalUID ?? e.id,
      title: e.summary ?? "(no title)",
      start: at(e.start),
      end: at(e.end),
      allDay: Boolean(e.start?.date && !e.start.dateTime),
      free: e.transparency === "transparent",
      location: e.location ?? null,
      description: e.description ?? null,
      attendees: (e.attendees ?? []).flatMap((a) => (a.self ? [] : [a.displayName ?? a.email ?? ""])).filter(Boolean),
    }))
    .filter((e) => Number.isFinite(e.start) && Number.isFinite(e.end));
}
