/**
 * The OAuth wire format for errors (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1): a JSON body
 * `{error, error_description}` with `Cache-Control: no-store`, not the REST envelope. The
 * description on the wire is short and fixed; `detail` (what exactly was wrong) goes to the log
 * only, with the request id.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly detail?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

export const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" } as const;

export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...NO_STORE, ...headers },
  });
}

export function renderOAuthError(error: OAuthError): Response {
  return oauthJson({ error: error.code, error_description: error.description }, error.status, error.headers);
}

export const invalidRequest = (detail?: string) =>
  new OAuthError(400, "invalid_request", "The request is missing a parameter or malformed.", detail);
export const invalidGrant = (detail?: string) =>
  new OAuthError(400, "invalid_grant", "The authorization code or refresh token is invalid, expired or revoked.", detail);
export const invalidScope = (detail?: string) =>
  new OAuthError(400, "invalid_scope", "The requested scope is unknown or exceeds the grant.", detail);
export const invalidTarget = (detail?: string) =>
  new OAuthError(400, "invalid_target", "The resource is not served by this server.", detail);
