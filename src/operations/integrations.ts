/**
 * Integrations of the calling user (src/docs/notes/calendar.md): connect, show and disconnect a CalDAV calendar.
 * REST only, with a write credential (admin key or crew:write: connecting lets Crew write events
 * in the user's name). The dashboard's Calendar page calls the same functions.
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { ApiError } from "../errors.ts";
import { type CalendarStatus, calendarStatus, connectCalendar, disconnectCalendar } from "../integrations/calendar.ts";
import { isoOrNull } from "../lib/clock.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, maxChars, PublicUrl } from "./schemas.ts";

const CalendarUrl = v.pipe(
  PublicUrl,
  v.description("The CalDAV server (e.g. https://caldav.fastmail.com/) or the address of one calendar on it."),
);

export const ConnectCalendarInput = v.strictObject({
  url: CalendarUrl,
  username: v.pipe(
    v.string("Must be a string."),
    v.trim(),
    v.minLength(1, "Must not be empty."),
    maxChars(200, "Must be at most 200 characters."),
    v.description("The CalDAV user name (often the email address)."),
  ),
  password: v.pipe(
    v.string("Must be a string."),
    v.minLength(1, "Must not be empty."),
    maxChars(1000, "Must be at most 1000 characters."),
    v.description("The password or app password. Stored encrypted (AES-GCM under CREW_SECRET), never shown again."),
  ),
});

const Status = v.object({
  connected: v.boolean(),
  url: v.pipe(v.nullable(v.string()), v.description("The server address given when connecting.")),
  username: v.nullable(v.string()),
  calendarName: v.pipe(v.nullable(v.string()), v.description("The calendar Crew reads and writes.")),
  calendarUrl: v.nullable(v.string()),
  connectedAt: v.nullable(DateTime),
  problem: v.pipe(
    v.nullable(v.string()),
    v.description("Why the last use of the calendar failed (an open `calendar` integration alert), or null."),
  ),
});

const toWire = (s: CalendarStatus): v.InferOutput<typeof Status> => ({ ...s, connectedAt: isoOrNull(s.connectedAt) });

export const getCalendarIntegrationOp = defineOperation({
  id: "getCalendarIntegration",
  summary: "Show the connected calendar",
  description:
    "Whether the calling user has a CalDAV calendar connected and which (server, user name, calendar), and the problem of its last use if it failed. Never the password.",
  input: v.strictObject({}),
  output: Status,
  rest: { method: "GET", path: "/api/integrations/calendar", access: writeAccess(), from: "none", tags: ["Integrations"] },
  handler: async (ctx) => toWire(await calendarStatus(ctx, ctx.principal)),
});

export const connectCalendarIntegrationOp = defineOperation({
  id: "connectCalendarIntegration",
  summary: "Connect a CalDAV calendar",
  description:
    "Connects (or replaces) the calling user's CalDAV calendar, used by crew_find_time and crew_calendar_create. Crew signs in to the server first and picks the calendar at `url` itself, else the account's first calendar of events; nothing is stored when that fails: 400 `calendar_credentials_rejected` (the server refused the user name and password), `calendar_unreachable` (no answer, or a server error), `calendar_not_found` (it answered, but holds no calendar for this account). The password is stored encrypted. Any open calendar alert of the user is resolved.",
  input: ConnectCalendarInput,
  output: Status,
  rest: { method: "POST", path: "/api/integrations/calendar", access: writeAccess(), from: "body", tags: ["Integrations"] },
  handler: async (ctx, input) => toWire(await connectCalendar(ctx, ctx.principal, input)),
});

export const disconnectCalendarIntegrationOp = defineOperation({
  id: "disconnectCalendarIntegration",
  summary: "Disconnect the calendar",
  description:
    "Forgets the calling user's calendar connection and its stored password, and resolves its open alert. The calendar itself is untouched. 404 when no calendar is connected.",
  input: v.strictObject({}),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/integrations/calendar", access: writeAccess(), from: "none", tags: ["Integrations"] },
  handler: async (ctx) => {
    if (!(await disconnectCalendar(ctx, ctx.principal))) throw new ApiError(404, "not_found", "No calendar is connected.");
    return { ok: true as const };
  },
});
