/**
 * CSRF protection for cookie-authenticated state changes (SPEC §2): a non-GET request that
 * carries the session cookie must come from Crew's own origin. Browsers send Origin on every
 * cross-origin POST; when it is absent, Sec-Fetch-Site (if sent) must say same-origin. Forms
 * carry a token as well (web/), checked by the page handlers.
 */
import { ApiError } from "./errors.ts";

export function assertSameOrigin(request: Request, baseUrl: string): void {
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return;
  const expected = new URL(baseUrl).origin;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (origin !== expected) throw new ApiError(403, "forbidden", "Cross-site request refused: the Origin is not this server's.");
    return;
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new ApiError(403, "forbidden", "Cross-site request refused.");
  }
}
