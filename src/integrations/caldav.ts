/**
 * The CalDAV client, through tsdav (which speaks fetch, so it runs on Node, Deno and Bun). Every
 * failure comes out as a CalDavError of one kind, judged from what the server actually answered:
 * tsdav's own errors are free text, so each request goes through a watching fetch that notes
 * refusals (401/403), server errors and network failures, with a timeout per request.
 *
 * That fetch is the outbound policy's (src/docs/notes/outbound-requests.md): the calendar URL is a user-supplied address, so
 * every request — redirects included — is vetted and pinned to the checked address. A refused
 * address reads exactly like an unreachable server to the user; the log says which.
 *
 * tsdav is imported on first use: only users with a connected calendar pay for loading it.
 */
import { encodeBase64 } from "@oslojs/encoding";
import type { OutboundPolicy } from "../lib/outbound-policy.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "./outbound.ts";

export type CalDavFailure = "rejected" | "unreachable" | "not_found" | "protocol";

export class CalDavError extends Error {
  constructor(
    readonly kind: CalDavFailure,
    message: string,
    /** For the log only (why a server was "unreachable": refused by the policy, timeout, …). */
    readonly detail: string | null = null,
  ) {
    super(message);
  }
}

export interface CalDavCredentials {
  username: string;
  password: string;
}

/** Credentials plus the outbound policy every request goes through. */
export interface CalDavAccess extends CalDavCredentials {
  outbound: OutboundPolicy;
}

export interface CalendarRef {
  calendarUrl: string;
  calendarName: string;
}

export const REQUEST_TIMEOUT_MS = 10_000;
/** A calendar query answers at most this much (a month of a busy calendar is far below it). */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

type Tsdav = typeof import("tsdav");
let tsdav: Promise<Tsdav> | null = null;
const loadTsdav = () => (tsdav ??= import("tsdav"));

/** Basic credentials as UTF-8 (tsdav's helper uses btoa, which throws on characters beyond Latin-1). */
const authHeaders = (c: CalDavCredentials) => ({
  Authorization: `Basic ${encodeBase64(new TextEncoder().encode(`${c.username}:${c.password}`))}`,
});

interface Observed {
  rejected: number | null;
  serverError: number | null;
  network: string | null;
}

function networkReason(error: unknown): string {
  if (error instanceof OutboundRefused || error instanceof OutboundFailed) return `${error.name}: ${error.reason}`;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function watchingFetch(seen: Observed, outbound: OutboundPolicy): typeof fetch {
  return async (input, init) => {
    // Once the server has not answered, the rest of the sequence (tsdav tries several candidate
    // URLs) fails at once: a call waits for one timeout, not one per request.
    if (seen.network) throw new TypeError(`not retried: ${seen.network}`);
    try {
      const url = input instanceof Request ? input.url : String(input);
      const res = await outboundFetch(outbound, url, { ...init, timeoutMs: REQUEST_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES });
      if (res.status === 401 || res.status === 403) seen.rejected = res.status;
      else if (res.status >= 500) seen.serverError = res.status;
      return res;
    } catch (error) {
      seen.network = networkReason(error);
      throw error;
    }
  };
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** The failure a request sequence ended in, from what was seen on the wire. */
function classify(seen: Observed, url: string, error: unknown, notFound: string): CalDavError {
  if (error instanceof CalDavError) return error;
  const host = hostOf(url);
  // One text for refused, closed, filtered and silent (src/docs/notes/outbound-requests.md: no port scanning through error texts).
  if (seen.network) {
    return new CalDavError(
      "unreachable",
      `Could not reach the calendar server at ${host}: no answer, or not a public address. A server on this machine or your own network (such as Radicale on localhost) needs the Crew server to run with ALLOW_PRIVATE_TARGETS=true.`,
      seen.network,
    );
  }
  if (seen.rejected) {
    return new CalDavError("rejected", `The calendar server at ${host} rejected the username and password (HTTP ${seen.rejected}).`);
  }
  if (seen.serverError) return new CalDavError("unreachable", `The calendar server at ${host} failed (HTTP ${seen.serverError}).`);
  return new CalDavError("not_found", notFound);
}

async function run<T>(
  url: string,
  outbound: OutboundPolicy,
  notFound: string,
  work: (dav: Tsdav, fetch: typeof globalThis.fetch) => Promise<T>,
): Promise<T> {
  const dav = await loadTsdav();
  const seen: Observed = { rejected: null, serverError: null, network: null };
  try {
    return await work(dav, watchingFetch(seen, outbound));
  } catch (error) {
    throw classify(seen, url, error, notFound);
  }
}

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);

/**
 * Signs in and finds the calendar to use: the one at `url` itself when the user gave a calendar's
 * address, else the first calendar of the account that holds events.
 */
export async function discoverCalendar(url: string, credentials: CalDavAccess): Promise<CalendarRef> {
  const notFound = `${hostOf(url)} answered, but no CalDAV calendar was found for this account at ${url}.`;
  return run(url, credentials.outbound, notFound, async (dav, fetch) => {
    const headers = authHeaders(credentials);
    const account = await dav.createAccount({ account: { serverUrl: url, accountType: "caldav" }, headers, fetch });
    const calendars = (await dav.fetchCalendars({ account, headers, fetch })).filter(
      (c) => !c.components?.length || c.components.includes("VEVENT"),
    );
    const chosen = calendars.find((c) => withSlash(c.url) === withSlash(url)) ?? calendars[0];
    if (!chosen) {
      throw new CalDavError(
        "not_found",
        `The account has no calendar for events at ${hostOf(url)}: create one in your calendar app first.`,
      );
    }
    const name = typeof chosen.displayName === "string" && chosen.displayName.trim() ? chosen.displayName.trim() : null;
    return { calendarUrl: chosen.url, calendarName: name ?? decodeURIComponent(chosen.url.split("/").filter(Boolean).pop() ?? "") };
  });
}

const davTime = (ms: number) => new Date(ms).toISOString();

/** The raw iCalendar objects with events in [start, end) (the server may send more; callers filter). */
export async function fetchEvents(calendarUrl: string, credentials: CalDavAccess, start: number, end: number): Promise<string[]> {
  const notFound = `The calendar at ${calendarUrl} no longer exists.`;
  return run(calendarUrl, credentials.outbound, notFound, async (dav, fetch) => {
    const objects = await dav.fetchCalendarObjects({
      calendar: { url: calendarUrl },
      timeRange: { start: davTime(start), end: davTime(end) },
      headers: authHeaders(credentials),
      fetch,
      // Any object of the collection, not only `*.ics` names (tsdav's default filter).
      urlFilter: (u) => withSlash(u) !== withSlash(calendarUrl),
    });
    return objects.map((o) => calendarData(o.data)).filter((d): d is string => d !== null);
  });
}

function calendarData(data: unknown): string | null {
  if (typeof data === "string") return data;
  const wrapped = data as { _cdata?: unknown; _text?: unknown } | null;
  if (typeof wrapped?._cdata === "string") return wrapped._cdata;
  return typeof wrapped?._text === "string" ? wrapped._text : null;
}

/** Stores a new object; tsdav sends `If-None-Match: *`, so an existing name is never overwritten. */
export async function putNewEvent(calendarUrl: string, credentials: CalDavAccess, filename: string, ics: string): Promise<string> {
  const notFound = `The calendar at ${calendarUrl} no longer exists.`;
  return run(calendarUrl, credentials.outbound, notFound, async (dav, fetch) => {
    const res = await dav.createCalendarObject({
      calendar: { url: calendarUrl },
      iCalString: ics,
      filename,
      headers: authHeaders(credentials),
      fetch,
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.ok) return new URL(filename, withSlash(calendarUrl)).href;
    if (res.status === 404 || res.status === 409) throw new CalDavError("not_found", notFound);
    if (res.status === 401 || res.status === 403 || res.status >= 500) throw new Error(`PUT answered ${res.status}`); // classified from what was seen
    throw new CalDavError("protocol", `The calendar server at ${hostOf(calendarUrl)} refused the new event (HTTP ${res.status}).`);
  });
}
