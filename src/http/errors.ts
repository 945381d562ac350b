/**
 * The REST error envelope (src/docs/notes/rest-api.md#errors). Handlers throw `ApiError` (src/errors.ts); `renderApiError` is
 * the one place that turns it into a response, with the RFC 6750 challenge on 401/403.
 */
import type { ApiError, FieldIssue } from "../errors.ts";
import { isMcpViewPath } from "../lib/mcp-paths.ts";

export interface ErrorEnvelope {
  error: string;
  message: string;
  request_id: string;
  docs_url: string;
  auth_url?: string;
  required_scope?: string;
  issues?: FieldIssue[];
}

/**
 * The protected-resource metadata a challenge points to: the /mcp variant for the MCP endpoint, and
 * /mcp/ for `/mcp/` (clients such as VS Code require its `resource` to equal the URL they use).
 */
export function resourceMetadataUrl(baseUrl: string, path: string): string {
  const suffix = path === "/mcp/" || isMcpViewPath(path) ? path : isMcpPath(path) ? "/mcp" : "";
  return `${baseUrl}/.well-known/oauth-protected-resource${suffix}`;
}

const isMcpPath = (path: string) => path === "/mcp" || path.startsWith("/mcp/");

/** The scopes an MCP client should ask for (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions): write too, since the consent page caps them by plan. */
export const MCP_CHALLENGE_SCOPE = "crew:read crew:write";

const quote = (s: string) => `"${s.replace(/["\\]/g, "")}"`;

/** RFC 6750 §3: the Bearer challenge for an authentication or scope failure. */
export function bearerChallenge(error: ApiError, baseUrl: string, path: string): string | null {
  const metadata = `resource_metadata=${quote(resourceMetadataUrl(baseUrl, path))}`;
  if (error.status === 401) {
    const parts = [`Bearer realm="crew"`];
    if (error.code === "invalid_token") {
      parts.push(`error="invalid_token"`, `error_description=${quote(error.message)}`);
    }
    if (isMcpPath(path)) parts.push(`scope="${MCP_CHALLENGE_SCOPE}"`);
    parts.push(metadata);
    return parts.join(", ");
  }
  // src/docs/notes/rest-api.md#errors gives both 403s this challenge: a plan that lacks the tier is, in RFC 6750 §3.1 terms,
  // a request that "requires higher privileges"; `scope` names what the operation needs.
  if (error.status === 403 && (error.code === "insufficient_scope" || error.code === "plan_upgrade_required")) {
    const scope = error.extra.required_scope ?? error.extra.challenge_scope ?? "";
    return `Bearer realm="crew", error="insufficient_scope", scope=${quote(scope)}, ${metadata}`;
  }
  return null;
}

export function errorEnvelope(error: ApiError, requestId: string, baseUrl: string): ErrorEnvelope {
  const body: ErrorEnvelope = {
    error: error.code,
    message: error.message,
    request_id: requestId,
    docs_url: `${baseUrl}/docs/errors#${error.code}`,
  };
  if (error.status === 401 || error.status === 403) {
    body.auth_url = `${baseUrl}/.well-known/oauth-authorization-server`;
  }
  if (error.extra.required_scope) body.required_scope = error.extra.required_scope;
  if (error.extra.issues) body.issues = error.extra.issues;
  // Clients can always read `issues` on a 400; a 400 thrown without them names the request as a whole.
  else if (error.status === 400) body.issues = [{ path: "(request)", message: error.message }];
  return body;
}

export function renderApiError(error: ApiError, requestId: string, baseUrl: string, path: string): Response {
  const headers = new Headers({ "Content-Type": "application/json; charset=utf-8", ...error.extra.headers });
  const challenge = bearerChallenge(error, baseUrl, path);
  if (challenge) headers.set("WWW-Authenticate", challenge);
  return new Response(JSON.stringify(errorEnvelope(error, requestId, baseUrl)), { status: error.status, headers });
}
