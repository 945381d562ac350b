/**
 * A connected calendar (src/docs/notes/connections.md): a person's Google or Microsoft connection
 * with calendar ticked is their calendar for crew_find_time, crew_calendar_create and the calendar
 * agent, before a CalDAV calendar (which stays for everyone else). Failures raise the person's
 * `google` / `microsoft` alert (access.ts) and reach the tool as an error saying what to do.
 */
import { ApiError } from "../../errors.ts";
import type { Db } from "../../store/db.ts";
import { connectionsOfUser, type StoredConnection } from "../../store/integrations/connections.ts";
import type { Interval } from "../free-slots.ts";
import { googleBusy, googleCreateEvent, googleEvents } from "../google/calendar.ts";
import type { CalendarOccurrence } from "../icalendar.ts";
import { graphBusy, graphCreateEvent, graphEvents } from "../microsoft/calendar.ts";
import { type ConnectionDeps, ConnectionUnavailable, parseJson, StoredConfig, withConnection } from "./access.ts";
import type { NewEvent } from "./new-event.ts";

/** The person's connection whose calendar Crew uses, Google first; null when none has calendar ticked. */
export async function calendarConnectionOf(db: Db, userId: string): Promise<StoredConnection | null> {
  return (await connectionsOfUser(db, userId)).find((c) => parseJson(StoredConfig, c.config)?.calendar) ?? null;
}

async function using<T>(
  deps: ConnectionDeps,
  orgId: string,
  row: StoredConnection,
  work: Parameters<typeof withConnection<T>>[3],
): Promise<T> {
  try {
    return await withConnection(deps, orgId, row, work);
  } catch (error) {
    if (error instanceof ConnectionUnavailable) throw new ApiError(503, "calendar_unavailable", error.message);
    throw error;
  }
}

export const connectionBusy = (deps: ConnectionDeps, orgId: string, row: StoredConnection, range: Interval): Promise<Interval[]> =>
  using(deps, orgId, row, (conn) => (row.provider === "google" ? googleBusy(conn, range) : graphBusy(conn, range)));

export const connectionCreateEvent = (deps: ConnectionDeps, orgId: string, row: StoredConnection, event: NewEvent): Promise<string> =>
  using(deps, orgId, row, (conn) => (row.provider === "google" ? googleCreateEvent(conn, event) : graphCreateEvent(conn, event)));

export const connectionEvents = (
  deps: ConnectionDeps,
  orgId: string,
  row: StoredConnection,
  range: Interval,
  max: number,
): Promise<CalendarOccurrence[]> =>
  using(deps, orgId, row, (conn) => (row.provider === "google" ? googleEvents(conn, range, max) : graphEvents(conn, range, max)));
