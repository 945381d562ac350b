/**
 * Calendar tools (SPEC §10): open slots on, and new events in, the user's connected CalDAV
 * calendar. MCP only (no REST part). Until a calendar is connected they answer with an error that
 * says how to connect one; talking CalDAV is the calendar integration's job (src/integrations/).
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { isValidTimeZone } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { hasIntegration } from "../store/integrations.ts";
import type { OperationContext } from "./registry.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, Email, LongText, Title } from "./schemas.ts";

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

export const findTime = defineOperation({
  id: "findTime",
  summary: "Find open time",
  description:
    "Finds up to `count` (default 3) open slots of `durationMinutes` on the user's connected calendar, inside working hours (default 09:00–17:00) and between `from` (default now) and `to` (default 7 days later), skipping busy events including recurring ones. Times are in `timeZone` (default the organization's). Needs a connected calendar.",
  input: v.pipe(
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
          v.description("IANA time zone; default the organization's."),
        ),
      ),
      count: v.optional(v.pipe(wholeNumber(1, 10), v.description("How many slots to return.")), 3),
    }),
    v.forward(
      v.check((i) => before(i.from, i.to), "to must be after from."),
      ["to"],
    ),
  ),
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
  handler: async (ctx) => {
    await requireCalendar(ctx);
    throw calendarUnavailable();
  },
});

export const createCalendarEvent = defineOperation({
  id: "createCalendarEvent",
  summary: "Create a calendar event",
  description:
    "Creates an event on the user's connected calendar from `start` to `end` (ISO 8601 with offset), with optional description and attendee emails. Returns the event id and times. Needs a connected calendar.",
  input: v.pipe(
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
  ),
  output: v.object({ eventId: v.string(), start: DateTime, end: DateTime }),
  mcp: {
    name: "crew_calendar_create",
    title: "Create calendar event",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  handler: async (ctx) => {
    await requireCalendar(ctx);
    throw calendarUnavailable();
  },
});

async function requireCalendar(ctx: OperationContext): Promise<void> {
  if (await hasIntegration(ctx.db, ctx.principal.userId, "calendar")) return;
  throw new ApiError(
    409,
    "calendar_not_connected",
    `No calendar is connected. Connect a CalDAV calendar first — POST ${ctx.config.baseUrl}/api/integrations/calendar with {url, username, password}, or the calendar section of the dashboard — then try again.`,
  );
}

/** A connected calendar the server cannot use yet: the CalDAV client arrives with the calendar integration. */
const calendarUnavailable = () =>
  new ApiError(503, "calendar_unavailable", "The calendar integration is not available on this server yet; try again later.");
