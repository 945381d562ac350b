/**
 * The decisions a client needs before its first call (OpenAPI `info.description`, the top of
 * /docs, llms.txt): credentials, plans, quota, errors, pagination, and where MCP differs from REST.
 * Markdown subset: paragraphs, `- ` lists, `code`, ### headings.
 */
import { bearerAccessNote } from "./access-notes.ts";
import type { Endpoint } from "./endpoints.ts";

export interface OverviewSettings {
  baseUrl: string;
  rateLimitPerHour: number;
}

/** Endpoints whose MCP tool has another requirement than the REST route (e.g. the action queue). */
function projectionDifferences(endpoints: Endpoint[]): string[] {
  return endpoints.flatMap((e) => {
    const mcp = e.mcp;
    if (!mcp || !e.access || e.auth !== "bearer") return [];
    const a = e.access;
    const same = a.tier === mcp.access.tier && a.oauthScope === mcp.access.oauthScope && a.keyScopes.join() === mcp.access.keyScopes.join();
    if (same) return [];
    return [`- \`${e.method} ${e.path}\` — REST: ${bearerAccessNote(a)} MCP tool \`${mcp.name}\`: ${bearerAccessNote(mcp.access)}`];
  });
}

export function overview(settings: OverviewSettings, endpoints: Endpoint[]): string {
  const { baseUrl, rateLimitPerHour } = settings;
  const paginated = endpoints.filter((e) => e.query?.properties?.cursor).map((e) => `\`${e.method} ${e.path}\``);
  const differences = projectionDifferences(endpoints);
  return [
    `Crew runs a crew of 17 AI agents for an organization and stores their output. This API exposes that stored intelligence (agent health, standups, daily briefings, suggestions, the company profile) and a few writes (the action queue, contacts, handoffs between agents, the insight feed) to scripts. AI tools use the same operations over MCP at \`${baseUrl}/mcp\` (see \`/.well-known/mcp.json\` and \`/llms.txt\`).`,
    "### Credentials",
    "Protected endpoints take `Authorization: Bearer <token>`: an API key (`crew_…`, created by a signed-in user at `POST /api/mcp/keys` or in the dashboard) or an OAuth 2.1 access token (authorization code with PKCE; dynamic client registration; metadata at `/.well-known/oauth-authorization-server`). API key management itself takes the browser session instead. A request's effective permission is (credential scopes) ∩ (what the user's plan includes); the plan is read on every request.",
    "- Plans lite, team_starter: no API access. pro, team_growth: read endpoints. operator, team_enterprise: every endpoint.\n- Key scopes: `read` (every read endpoint except the action queue), `briefing` (the briefing), `agents` (agent status), `admin` (everything).\n- OAuth scopes: `crew:read`; `crew:write` (includes crew:read); `crew:admin` (grants exactly what crew:write grants).",
    "Each operation lists the alternatives that pass in its `security` (any one suffices) and in `x-crew-access`.",
    "### REST and MCP requirements differ for some operations",
    differences.length > 0
      ? `An operation may carry a different requirement per projection, and the registry says so in one place. Currently:\n${differences.join("\n")}`
      : "Every operation needs the same on REST as its MCP tool.",
    "### Quota",
    `Each user may make ${rateLimitPerHour} requests per hour to protected endpoints, shared by all of the user's keys and tokens and by \`/mcp\`. Windows are fixed clock hours (UTC), counted in the database, so several server processes share one exact count. Every authenticated request counts, including ones refused with 403 or 400; a 401 does not. Every protected response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds); a refused one is 429 \`rate_limited\` with \`Retry-After\` (seconds). Session endpoints are not quota-counted; creating API keys has its own hourly limit.`,
    "### Order of checks",
    "Credential (401) → quota (429) → plan and scope (403) → input (413, 415, 400) → the operation (404 for a missing record).",
    "### Errors",
    `Every error is JSON: \`{error, message, request_id, docs_url, auth_url?, required_scope?, issues?}\`. \`error\` is a stable code, \`docs_url\` (\`${baseUrl}/docs/errors#<code>\`) explains it and its fix, \`issues\` names every offending field of an invalid request (\`actions[3].priority\`), \`required_scope\` the narrowest scope that would pass. 401 and 403 carry an RFC 6750 \`WWW-Authenticate\` challenge with \`resource_metadata\`; 405 carries \`Allow\`.`,
    "### Pagination",
    paginated.length > 0
      ? `Lists that can grow take \`limit\` (1–100, default 50) and \`cursor\` and answer \`nextCursor\`: pass it as \`cursor\` for the next page; \`null\` means the last page. Cursors are opaque and stable: items added meanwhile do not shift or repeat the pages. Paginated: ${paginated.join(", ")}.`
      : "No endpoint paginates.",
    "### Conventions",
    "- Request and response bodies are JSON (`Content-Type: application/json`), at most 256 KiB; unknown fields are rejected.\n- Identifiers are a type prefix and a ULID (`act_…`, `con_…`, `hof_…`, `ins_…`, `brf_…`, `std_…`, `run_…`, `whk_…`).\n- Times are ISO 8601 in UTC.\n- Every response carries `X-Request-Id` (yours when you send a valid one); every `/api/mcp/*` response carries `API-Version: 1.0.0`.",
  ].join("\n\n");
}
