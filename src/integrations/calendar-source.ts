/**
 * The calendar agent's source (src/docs/notes/calendar.md): the next 7 days of the calendars the
 * organization's users connected — active users, owners first, then by who connected first, at
 * most MAX_CALENDARS — read through each user's own connection (withCalendar: the outbound policy,
 * and that user's `calendar` alert when it fails, resolved when it works), recurring events
 * expanded within the window only (icalendar.ts). The same meeting on two calendars is one event.
 */
import { ApiError } from "../errors.ts";
import { DAY } from "../lib/clock.ts";
import type { Db } from "../store/db.ts";
import { connectionsOfOrg } from "../store/integrations/connections.ts";
import { connectedCalendarUsers } from "../store/integrations/integrations.ts";
import { getOrg } from "../store/orgs/orgs.ts";
import { fetchEvents } from "./caldav.ts";
import { type CalendarDeps, withCalendar } from "./calendar.ts";
import { parseJson, StoredConfig } from "./connections/access.ts";
import { connectionEvents } from "./connections/calendar.ts";
import { type CalendarOccurrence, occurrencesIn } from "./icalendar.ts";

/** Calendars read per run: enough for a small company's founders, bounded in time and tokens. */
export const MAX_CALENDARS = 5;
/** How far ahead the calendar agent looks. */
export const CALENDAR_WINDOW_MS = 7 * DAY;

/** An event of the window, and whose calendar it was read from. */
export interface CalendarEvent extends CalendarOccurrence {
  calendar: string;
}

export interface CalendarRead {
  /** Earliest first, at most the caller's maxItems. */
  events: CalendarEvent[];
  /** Set when calendars are connected but none could be read (each user's alert is raised already). */
  problem: string | null;
}

export async function readCalendarEvents(
  deps: CalendarDeps & { db: Db },
  orgId: string,
  limits: { maxItems: number },
): Promise<CalendarRead> {
  // Google or Microsoft calendars connected on /settings/connections first (src/docs/notes/connections.md), then CalDAV ones.
  const connected = (await connectionsOfOrg(deps.db, orgId, MAX_CALENDARS)).filter((c) => parseJson(StoredConfig, c.config)?.calendar);
  const byConnection = new Map(connected.map((c) => [c.userId, c]));
  const caldav = (await connectedCalendarUsers(deps.db, orgId, MAX_CALENDARS)).filter((u) => !byConnection.has(u.userId));
  const users = [...connected.map((c) => ({ userId: c.userId, name: c.name, timeZone: null })), ...caldav].slice(0, MAX_CALENDARS);
  if (users.length === 0) return { events: [], problem: null };
  const orgZone = (await getOrg(deps.db, orgId))?.timeZone ?? deps.config.defaultTimeZone;
  const now = deps.clock.now();
  const range = { start: now, end: now + CALENDAR_WINDOW_MS };
  const read = await Promise.all(
    users.map(async (user) => {
      try {
        const connection = byConnection.get(user.userId);
        const occurrences = connection
          ? await connectionEvents(deps, orgId, connection, range, limits.maxItems)
          : await withCalendar(deps, { orgId, userId: user.userId }, async (calendar) =>
              occurrencesIn(await fetchEvents(calendar.calendarUrl, calendar, range.start, range.end), range, user.timeZone ?? orgZone),
            );
        return { user, occurrences, problem: null };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return { user, occurrences: [], problem: `${user.name}'s calendar: ${error.message}` };
      }
    }),
  );
  if (read.every((r) => r.problem)) return { events: [], problem: `Calendar: ${read.map((r) => r.problem).join(" ")}` };
  const seen = new Set<string>();
  const events: CalendarEvent[] = [];
  for (const { user, occurrences } of read) {
    for (const o of occurrences) {
      const key = `${o.uid}/${o.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      events.push({ ...o, calendar: `${user.name}'s calendar` });
    }
  }
  events.sort((a, b) => a.start - b.start);
  return { events: events.slice(0, limits.maxItems), problem: null };
}
