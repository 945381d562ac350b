/**
 * Calendar tools (src/docs/notes/calendar.md): open slots on, and new events in, the user's connected
 * calendar — Google or Microsoft 365 (src/docs/notes/connections.md), else CalDAV. MCP only (no REST part; connecting is src/operations/integrations.ts). Until a calendar
 * is connected they answer with an error that says how to connect one; talking CalDAV, and the
 * alert when the calendar fails, is the calendar integration's job (src/integrations/).
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { isValidTimeZone } from "../config.ts";
import { ApiError } from "../errors.ts";
import { fetchEvents, putNewEvent } from "../integrations/caldav.ts";
import { notConnected, withCalendar } from "../integrations/calendar.ts";
import { calendarConnectionOf, connectionBusy, connectionCreateEvent } from "../integrations/connections/calendar.ts";
import { findSlots } from "../integrations/free-slots.ts";
import { busyIntervals, eventCalendar } from "../integrations/icalendar.ts";
import { isoInZone } from "../integrations/zoned-time.ts";
import { DAY, MINUTE } from "../lib/clock.ts";
import { randomSecret } from "../lib/random.ts";
import { getUserById } from "../store/auth/users.ts";
import { hasIntegration } from "../store/integrations/integrations.ts";
import { getOrg } from "../store/orgs/orgs.ts";
import type { OperationContext } from "./registry.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, Email, LongText, Title } from "./schemas.ts";

/** Longest search window: enough for "next month", small enough to expand recurring events quickly. */
const MAX_WINDOW_DAYS = 62;

const Instant = v.pipe(
  v.string("Must be a string."),
  v.isoTimestamp("Must be an ISO 8601 date-time with seconds and an offset, e.g. 2026-11-23T09:00:00Z."),
);

const ClockTime = v.pipe(v.string("Must be a string."), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Must be a time of day HH:MM, e.g. 09:00."));

const wholeNumber = (min: number, max: number) =>
  v.pipe(
    v.number(`Must be a whole number from ${min} to ${max}.`),
    v.integer(`Must be a whole number from ${min} to ${max}.`),
    v.minValue(min, `Must be at least ${min}.`),
    v.maxValue(max, `Must be at most ${max}.`),
  );

const before = (a: string | undefined, b: string | undefined) => a === undefined || b === undefined || Date.parse(a) < Date.parse(b);

const Slot = v.object({ start: DateTime, end: DateTime });

const FindTimeInput = v.pipe(
  v.strictObject({
    durationMinutes: v.pipe(wholeNumber(5, 480), v.description("Length of the meeting in minutes.")),
    from: v.optional(v.pipe(Instant, v.description("Start of the search window; default now."))),
    to: v.optional(v.pipe(Instant, v.description("End of the search window; default 7 days after `from`."))),
    workingHours: v.optional(
      v.pipe(
        v.strictObject({ start: ClockTime, end: ClockTime }),
        v.check((h) => h.start < h.end, "start must be before end."),
        v.description("Working hours in `timeZone`, e.g. {start:'09:00', end:'17:00'}."),
      ),
    ),
    timeZone: v.optional(
      v.pipe(
        v.string("Must be a string."),
        v.check(isValidTimeZone, "Must be an IANA time zone such as Europe/Paris."),
        v.description("IANA time zone of the working hours and of the answer; default the user's own, else the organization's."),
      ),
    ),
    count: v.optional(v.pipe(wholeNumber(1, 10), v.description("How many slots to return.")), 3),
  }),
  v.forward(
    v.check((i) => before(i.from, i.to), "to must be after from."),
    ["to"],
  ),
);

const CreateEventInput = v.pipe(
  v.strictObject({
    title: Title,
    start: Instant,
    end: Instant,
    description: v.optional(LongText),
    attendees: v.optional(
      v.pipe(v.array(Email, "Must be an array of email addresses."), v.maxLength(50, "Must hold at most 50 attendees.")),
    ),
  }),
  v.forward(
    v.check((i) => before(i.start, i.end), "end must be after start."),
    ["end"],
  ),
);

export const findTimeOp = defineOperation({
  id: "findTime",
  summary: "Find open time",
  description:
    "Finds up to `count` (default 3) open slots of `durationMinutes` on the user's connected calendar, earliest first: inside working hours (default 09:00–17:00) on Monday to Friday, between `from` (default now; never before now) and `to` (default 7 days later; at most 62 days), skipping busy events including every occurrence of recurring ones (events marked free or cancelled do not count; all-day events block the whole day). Slots are back to back and start on a quarter-hour step from the start of the working day. Times are in `timeZone` (default the user's own, else the organization's), written with that zone's offset. Needs a connected calendar.",
  input: FindTimeInput,
  output: v.object({
    timeZone: v.string(),
    slots: v.pipe(v.array(Slot), v.description("Open slots, earliest first.")),
  }),
  mcp: {
    name: "crew_find_time",
    title: "Find time",
    access: writeAccess(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  handler: findOpenTime,
});

export const createCalendarEventOp = defineOperation({
  id: "createCalendarEvent",
  summary: "Create a calendar event",
  description:
    "Creates an event on the user's connected calendar from `start` to `end` (ISO 8601 with offset, e.g. a slot from crew_find_time), with optional description and attendee emails (the user is named as organizer; calendar servers that handle scheduling may email the attendees an invitation). Returns the event's id (its iCalendar UID on CalDAV, the provider's event id on Google or Microsoft 365) and its times in the user's time zone. Needs a connected calendar.",
  input: CreateEventInput,
  output: v.object({ eventId: v.string(), start: DateTime, end: DateTime }),
  mcp: {
    name: "crew_calendar_create",
    title: "Create calendar event",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  handler: createEvent,
});

/** The zone slots are shown in: the argument, else the user's own, else the organization's. */
async function effectiveTimeZone(ctx: OperationContext, requested: string | undefined): Promise<string> {
  if (requested) return requested;
  const user = await getUserById(ctx.db, ctx.principal.userId);
  if (user?.timeZone && isValidTimeZone(user.timeZone)) return user.timeZone;
  return (await getOrg(ctx.db, ctx.principal.orgId))?.timeZone ?? ctx.config.defaultTimeZone;
}

async function findOpenTime(ctx: OperationContext, input: v.InferOutput<typeof FindTimeInput>) {
  const timeZone = await effectiveTimeZone(ctx, input.timeZone);
  const now = ctx.clock.now();
  // Never a slot in the past: a window reaching back starts now.
  const from = Math.max(input.from ? Date.parse(input.from) : now, now);
  const to = input.to ? Date.parse(input.to) : from + 7 * DAY;
  if (to - from > MAX_WINDOW_DAYS * DAY) {
    throw new ApiError(400, "invalid_request", `The search window may span at most ${MAX_WINDOW_DAYS} days.`, {
      issues: [{ path: "to", message: `Must be at most ${MAX_WINDOW_DAYS} days after from.` }],
    });
  }
  const workingHours = input.workingHours ?? { start: "09:00", end: "17:00" };
  // A Google or Microsoft calendar connected on /settings/connections comes first; else CalDAV.
  const connection = await calendarConnectionOf(ctx.db, ctx.principal.userId);
  if (to <= from) {
    // A window wholly in the past: nothing to ask the server (and no success to resolve an alert with).
    if (!connection && !(await hasIntegration(ctx.db, ctx.principal.userId, "calendar"))) throw notConnected(ctx.config.baseUrl);
    return { timeZone, slots: [] };
  }
  const query = { from, to, durationMs: input.durationMinutes * MINUTE, workingHours, timeZone, count: input.count };
  const slots = connection
    ? findSlots({ ...query, busy: await connectionBusy(ctx, ctx.principal.orgId, connection, { start: from, end: to }) })
    : await withCalendar(ctx, ctx.principal, async (calendar) => {
        const objects = await fetchEvents(calendar.calendarUrl, calendar, from, to);
        return findSlots({ ...query, busy: await busyIntervals(objects, { start: from, end: to }, timeZone) });
      });
  return { timeZone, slots: slots.map((s) => ({ start: isoInZone(timeZone, s.start), end: isoInZone(timeZone, s.end) })) };
}

async function createEvent(ctx: OperationContext, input: v.InferOutput<typeof CreateEventInput>) {
  const timeZone = await effectiveTimeZone(ctx, undefined);
  const start = Date.parse(input.start);
  const end = Date.parse(input.end);
  const connection = await calendarConnectionOf(ctx.db, ctx.principal.userId);
  if (connection) {
    const event = { title: input.title, start, end, description: input.description, attendees: input.attendees ?? [] };
    const eventId = await connectionCreateEvent(ctx, ctx.principal.orgId, connection, event);
    return { eventId, start: isoInZone(timeZone, start), end: isoInZone(timeZone, end) };
  }
  const uid = `crew-${randomSecret(16)}`;
  const ics = eventCalendar({
    uid,
    title: input.title,
    start,
    end,
    description: input.description,
    attendees: input.attendees,
    organizer: { email: ctx.principal.email, name: ctx.principal.name },
    now: ctx.clock.now(),
  });
  await withCalendar(ctx, ctx.principal, (calendar) => putNewEvent(calendar.calendarUrl, calendar, `${uid}.ics`, ics));
  return { eventId: uid, start: isoInZone(timeZone, start), end: isoInZone(timeZone, end) };
}
