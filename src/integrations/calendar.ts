/**
 * A user's connected CalDAV calendar (src/docs/notes/calendar.md): connect (credentials verified against the server
 * before anything is stored), status, disconnect, and `withCalendar`, which every calendar tool
 * goes through: it opens the stored credentials, and turns a rejected password or an unreachable
 * server into a tool error plus an open `calendar` alert on the dashboard, resolved by the next
 * call that works. The REST operations and the Calendar page call these same functions.
 */
import * as v from "valibot";
import type { Config } from "../config.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { OutboundPolicy } from "../lib/outbound-policy.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { openUserAlert, raiseUserAlert, resolveUserAlerts, resolveUserAlertsStatement } from "../store/integrations/alerts.ts";
import { deleteIntegrationStatement, getIntegration, saveIntegrationStatement } from "../store/integrations/integrations.ts";
import { type CalDavAccess, CalDavError, type CalDavFailure, discoverCalendar } from "./caldav.ts";
import { open, SecretBoxError, seal, sealingKey } from "./secret-box.ts";

export interface CalendarDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  outbound: OutboundPolicy;
}

export interface ConnectInput {
  url: string;
  username: string;
  password: string;
}

/** What GET /api/integrations/calendar shows: never the password. */
export interface CalendarStatus {
  connected: boolean;
  url: string | null;
  username: string | null;
  calendarName: string | null;
  calendarUrl: string | null;
  connectedAt: number | null;
  /** The open alert's message: why the last use failed. */
  problem: string | null;
}

/** An opened connection, password in the clear: lives for one call only. */
export interface OpenCalendar extends CalDavAccess {
  calendarUrl: string;
  calendarName: string;
}

const StoredConfig = v.object({
  url: v.string(),
  username: v.string(),
  password: v.string(),
  calendarUrl: v.string(),
  calendarName: v.string(),
});

const SERVICE = "calendar";
/** Whose calendar: its user (a person's request, or the calendar agent reading it, src/integrations/calendar-source.ts). */
export type CalendarOwner = Pick<Principal, "orgId" | "userId">;

const alertKey = (p: CalendarOwner) => ({ orgId: p.orgId, userId: p.userId, service: SERVICE });
/** Binds a sealed password to its row: copied into another user's row, it does not open. */
const purpose = (userId: string) => `calendar:${userId}`;

const secretOf = (config: Config) => sealingKey(config, "integration credentials");

/** Error codes of the calendar failures (src/docs/error-codes.ts). */
const CODES: Record<CalDavFailure, string> = {
  rejected: "calendar_credentials_rejected",
  unreachable: "calendar_unreachable",
  not_found: "calendar_not_found",
  protocol: "calendar_unavailable",
};

/** Refusal of a connection: 400 naming the field to correct. */
function connectRefusal(error: CalDavError): ApiError {
  const field = error.kind === "rejected" ? "password" : "url";
  const code = error.kind === "protocol" ? CODES.not_found : CODES[error.kind];
  return new ApiError(400, code, `The calendar was not connected. ${error.message}`, { issues: [{ path: field, message: error.message }] });
}

export async function connectCalendar(deps: CalendarDeps, principal: Principal, input: ConnectInput): Promise<CalendarStatus> {
  const secret = secretOf(deps.config);
  let found: Awaited<ReturnType<typeof discoverCalendar>>;
  try {
    found = await discoverCalendar(input.url, { ...input, outbound: deps.outbound });
  } catch (error) {
    if (error instanceof CalDavError) {
      if (error.detail) deps.log.info("calendar not connected", { user_id: principal.userId, kind: error.kind, detail: error.detail });
      throw connectRefusal(error);
    }
    throw error;
  }
  const now = deps.clock.now();
  const stored: v.InferOutput<typeof StoredConfig> = {
    url: input.url,
    username: input.username,
    password: await seal(secret, input.password, purpose(principal.userId)),
    ...found,
  };
  // Reconnecting is how a user answers an alert: it is resolved with the same write.
  await deps.db.batch(
    [
      saveIntegrationStatement(principal.userId, "calendar", JSON.stringify(stored), now),
      resolveUserAlertsStatement(alertKey(principal), now),
    ],
    "write",
  );
  return calendarStatus(deps, principal);
}

export async function calendarStatus(deps: CalendarDeps, principal: Principal): Promise<CalendarStatus> {
  const row = await getIntegration(deps.db, principal.userId, "calendar");
  if (!row) {
    return { connected: false, url: null, username: null, calendarName: null, calendarUrl: null, connectedAt: null, problem: null };
  }
  const parsed = v.safeParse(StoredConfig, safeJson(row.config));
  const c = parsed.success ? parsed.output : null;
  const alert = await openUserAlert(deps.db, alertKey(principal));
  return {
    connected: true,
    url: c?.url ?? null,
    username: c?.username ?? null,
    calendarName: c?.calendarName ?? null,
    calendarUrl: c?.calendarUrl ?? null,
    connectedAt: row.updatedAt,
    problem: alert?.message ?? null,
  };
}

/** False when no calendar was connected. Its alerts go with it. */
export async function disconnectCalendar(deps: CalendarDeps, principal: Principal): Promise<boolean> {
  const [deleted] = await deps.db.batch(
    [deleteIntegrationStatement(principal.userId, "calendar"), resolveUserAlertsStatement(alertKey(principal), deps.clock.now())],
    "write",
  );
  return (deleted?.rowsAffected ?? 0) > 0;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function notConnected(baseUrl: string): ApiError {
  return new ApiError(
    409,
    "calendar_not_connected",
    `No calendar is connected. Connect Google or Microsoft 365 on ${baseUrl}/settings/connections, or a CalDAV calendar — POST ${baseUrl}/api/integrations/calendar with {url, username, password}, or the Calendar page of the dashboard (${baseUrl}/settings/calendar) — then try again.`,
  );
}

const RECONNECT = "Reconnect it on the Calendar page of the dashboard.";

/** A failure the user has to see: a tool error now, and the dashboard alert until a call works. */
async function fail(deps: CalendarDeps, principal: CalendarOwner, code: string, status: number, detail: string): Promise<never> {
  const now = deps.clock.now();
  await raiseUserAlert(deps.db, { ...alertKey(principal), id: newId("alr", now), message: `Calendar: ${detail} ${RECONNECT}` }, now);
  throw new ApiError(status, code, `${detail} ${RECONNECT}`);
}

/**
 * Runs `work` with the user's connected calendar. Not connected: calendar_not_connected (no
 * alert: nothing is broken). Credentials rejected, server unreachable, calendar gone, or stored
 * credentials that no longer open (CREW_SECRET changed): an error and an open alert. Success
 * resolves the user's open calendar alert.
 */
export async function withCalendar<T>(
  deps: CalendarDeps,
  principal: CalendarOwner,
  work: (calendar: OpenCalendar) => Promise<T>,
): Promise<T> {
  const row = await getIntegration(deps.db, principal.userId, "calendar");
  if (!row) throw notConnected(deps.config.baseUrl);
  const parsed = v.safeParse(StoredConfig, safeJson(row.config));
  if (!parsed.success) return fail(deps, principal, CODES.protocol, 503, "The stored calendar connection cannot be read.");
  const stored = parsed.output;
  let password: string;
  try {
    password = await open(secretOf(deps.config), stored.password, purpose(principal.userId));
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    deps.log.warn("calendar credentials do not open", { user_id: principal.userId });
    return fail(deps, principal, CODES.protocol, 503, "The saved calendar password cannot be decrypted (was CREW_SECRET changed?).");
  }
  let result: T;
  try {
    result = await work({
      username: stored.username,
      password,
      calendarUrl: stored.calendarUrl,
      calendarName: stored.calendarName,
      outbound: deps.outbound,
    });
  } catch (error) {
    if (!(error instanceof CalDavError)) throw error;
    if (error.detail) deps.log.warn("calendar call failed", { user_id: principal.userId, kind: error.kind, detail: error.detail });
    return fail(deps, principal, CODES[error.kind], error.kind === "protocol" ? 503 : 400, error.message);
  }
  // Reads first: the usual case (no open alert) costs no write.
  if (await openUserAlert(deps.db, alertKey(principal))) await resolveUserAlerts(deps.db, alertKey(principal), deps.clock.now());
  return result;
}
