/**
 * CSRF protection for cookie-authenticated state changes (src/docs/notes/web-and-accounts.md), two layers:
 * 1. Origin: a non-GET request must come from Crew's own origin (BASE_URL). Browsers send Origin
 *    on every cross-origin POST; when it is absent, Sec-Fetch-Site (if sent) must say same-origin.
 *    Requests with neither are not from a browser page (curl, scripts) and carry no ambient cookie risk.
 * 2. Forms carry the session's csrf token in a hidden field `csrf`, compared in constant time.
 */
import { constantTimeEqual } from "@oslojs/crypto/subtle";
import { ApiError } from "../errors.ts";

export const CSRF_FIELD = "csrf";

/** Null when the request may change state for this origin, else why not. */
export function crossSiteReason(request: Request, baseUrl: string): string | null {
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return null;
  const expected = new URL(baseUrl).origin;
  const origin = request.headers.get("origin");
  if (origin !== null) return origin === expected ? null : "Cross-site request refused: the Origin is not this server's.";
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return "Cross-site request refused.";
  return null;
}

export function assertSameOrigin(request: Request, baseUrl: string): void {
  const reason = crossSiteReason(request, baseUrl);
  if (reason) throw new ApiError(403, "forbidden", reason);
}

/** Constant-time comparison of the form's token with the session's. */
export function csrfTokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  const enc = new TextEncoder();
  return constantTimeEqual(enc.encode(expected), enc.encode(given));
}
