/**
 * Every `error` code of the REST envelope (src/docs/notes/rest-api.md#errors), with what it means and how to fix it. The
 * OpenAPI error responses and /docs/errors (the target of each envelope's `docs_url`) use this list.
 */
export interface ErrorCode {
  code: string;
  status: number;
  title: string;
  when: string;
  fix: string;
  /** Response headers that come with it. */
  headers?: string[];
}

export const ERROR_CODES: ErrorCode[] = [
  {
    code: "invalid_request",
    status: 400,
    title: "Invalid request",
    when: "The body is not JSON or not an object, a field has the wrong type, an unknown field was sent, an enum value is not one of those listed, a text is over its length limit, or a query parameter is malformed or repeated.",
    fix: "Read `issues`: each entry names one offending field by its path (e.g. `actions[3].priority`) with what is wrong. Fix every field listed and send the request again; the request had no effect.",
  },
  {
    code: "unauthorized",
    status: 401,
    title: "No credential",
    when: "The request carries no `Authorization: Bearer …` header (or, for session endpoints, no signed-in session cookie).",
    fix: "Send `Authorization: Bearer <token>` with an API key (`crew_…`, created at `POST /api/mcp/keys` or in the dashboard) or an OAuth access token. OAuth clients start from the `resource_metadata` URL in the `WWW-Authenticate` header. Session endpoints: sign in first.",
    headers: ["WWW-Authenticate"],
  },
  {
    code: "invalid_token",
    status: 401,
    title: "Unknown, revoked or expired token",
    when: "The Bearer token is malformed, unknown, revoked, or expired (OAuth access tokens live one hour).",
    fix: "OAuth clients: use the refresh token at the token endpoint to get a new access token; if that fails, authorize again. API keys: the key was revoked; create a new one.",
    headers: ["WWW-Authenticate"],
  },
  {
    code: "insufficient_scope",
    status: 403,
    title: "Credential lacks a scope",
    when: "The credential is valid but its scopes do not include what the operation needs.",
    fix: "`required_scope` names the narrowest scope that would pass (`admin` for an API key, `crew:write` for an OAuth token). Create a key with that scope, or authorize the OAuth client again asking for it.",
    headers: ["WWW-Authenticate"],
  },
  {
    code: "plan_upgrade_required",
    status: 403,
    title: "Plan does not include it",
    when: "The user's plan does not include this kind of access (lite and team_starter: no API access; pro and team_growth: read only). Also when an API key is created with scopes outside the plan.",
    fix: "The message names the cheapest plan that includes the request; ask the deployment's administrator to change the plan (`npx crew user set-plan`). Scopes cannot fix a plan.",
    headers: ["WWW-Authenticate"],
  },
  {
    code: "forbidden",
    status: 403,
    title: "Forbidden",
    when: "A cookie-authenticated request that changes state came from another origin (CSRF protection), or the signed-in user may not do this.",
    fix: "Send state-changing requests from Crew's own pages (same origin), or use a Bearer credential from scripts.",
  },
  {
    code: "not_found",
    status: 404,
    title: "Not found",
    when: "No such endpoint, or the record named (an action id, an API key hash, a standup of that mode) does not exist for your organization.",
    fix: "Check the path against this reference and the id against a list endpoint. Records of other organizations or users are reported as not found.",
  },
  {
    code: "method_not_allowed",
    status: 405,
    title: "Method not allowed",
    when: "The path exists but does not take this HTTP method.",
    fix: "Use one of the methods in the `Allow` response header.",
    headers: ["Allow"],
  },
  {
    code: "payload_too_large",
    status: 413,
    title: "Payload too large",
    when: "The request body is over 256 KiB.",
    fix: "Send less: split a batch of actions into several requests (at most 100 actions each).",
  },
  {
    code: "unsupported_media_type",
    status: 415,
    title: "Unsupported media type",
    when: "A request body was sent with a Content-Type other than `application/json`.",
    fix: "Send `Content-Type: application/json` and a JSON body.",
  },
  {
    code: "rate_limited",
    status: 429,
    title: "Rate limited",
    when: "The hourly request quota of the user is spent (shared by all of the user's keys and tokens, MCP included), or too many API keys were created in the last hour, or too many failed sign-ins.",
    fix: "Wait `Retry-After` seconds (the quota window resets at `X-RateLimit-Reset`, Unix seconds), then retry. Spread requests out; cache what changes slowly (agent output changes at most every few minutes).",
    headers: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"],
  },
  {
    code: "calendar_not_connected",
    status: 409,
    title: "No calendar connected",
    when: "A calendar tool (crew_find_time, crew_calendar_create) was called by a user who has not connected a CalDAV calendar. MCP tool error only.",
    fix: "Connect a CalDAV calendar (`POST /api/integrations/calendar` with `{url, username, password}`), then call the tool again.",
  },
  {
    code: "calendar_credentials_rejected",
    status: 400,
    title: "Calendar credentials rejected",
    when: "The CalDAV server refused the user name and password (HTTP 401 or 403): when connecting (`POST /api/integrations/calendar`, nothing is stored; `issues` names `password`), or at a calendar tool call after the password changed (a tool error, and a critical `calendar` integration alert until a call works again).",
    fix: "Check the user name and password; many providers (iCloud, Fastmail, Google) need an app-specific password for CalDAV. Then connect the calendar again.",
  },
  {
    code: "calendar_unreachable",
    status: 400,
    title: "Calendar server unreachable",
    when: "The CalDAV server did not answer within 10 seconds, refused the connection, or failed (HTTP 5xx): when connecting (`issues` names `url`; nothing is stored), or at a calendar tool call (a tool error and a critical `calendar` integration alert until a call works again).",
    fix: "Check the URL (scheme, host and port) and that the server is up and reachable from the Crew server, then try again.",
  },
  {
    code: "calendar_not_found",
    status: 400,
    title: "No calendar found",
    when: "The server answered, but no CalDAV calendar of events was found for this account at that URL (not a CalDAV server, or an account without calendars); at a tool call: the connected calendar was deleted.",
    fix: "Give the CalDAV address your provider documents (or the address of one calendar), create a calendar in your calendar app if the account has none, then connect again.",
  },
  {
    code: "calendar_unavailable",
    status: 503,
    title: "Calendar unavailable",
    when: "The connected calendar could not be used for another reason: the stored connection cannot be read or its password no longer decrypts (CREW_SECRET changed), or the server refused the event in an unexpected way. MCP tool error only, with a critical `calendar` integration alert.",
    fix: "Connect the calendar again (dashboard Calendar page or `POST /api/integrations/calendar`).",
  },
  {
    code: "run_already_completed",
    status: 409,
    title: "Run already completed",
    when: "`POST /api/agents/{id}/runs/{runId}/complete` for a run that is no longer running: it was completed before, or the scheduler closed it as an error after it stayed open for over an hour.",
    fix: "Nothing of this completion was stored. Start a new run (`POST /api/agents/{id}/runs`) and complete that one; complete each run once, within an hour of starting it.",
  },
  {
    code: "internal_error",
    status: 500,
    title: "Internal error",
    when: "Something unexpected went wrong on the server. The body holds no detail; the server log has it under the request id.",
    fix: "Retry later; if it persists, report it with the `request_id` (also in the `X-Request-Id` header).",
  },
];

export const codesForStatus = (status: number): string[] => ERROR_CODES.filter((e) => e.status === status).map((e) => e.code);
