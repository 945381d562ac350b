/**
 * The quota counts JSON-RPC requests, not HTTP requests: the gate (auth/protect.ts) took one unit
 * for the POST, and a batch (protocol 2025-03-26) takes one more for each further request it holds
 * (notifications and responses cost nothing), all or none — a batch that does not fit is refused
 * whole with 429, so none of its calls run.
 */

import { consumeQuota, quotaHeaders } from "../auth/quota.ts";
import type { AppDeps } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";

const isRequest = (m: unknown) => typeof m === "object" && m !== null && "method" in m && "id" in m;

/** How many requests (messages expecting an answer) a parsed body holds. */
export function requestCount(parsed: unknown): number {
  if (!Array.isArray(parsed)) return isRequest(parsed) ? 1 : 0;
  return parsed.filter(isRequest).length;
}

/** Takes the units of a batch's requests beyond the first; the newer X-RateLimit-* headers, or a 429. */
export async function chargeBatch(
  deps: Pick<AppDeps, "quota" | "config" | "clock">,
  principal: Principal,
  parsed: unknown,
): Promise<Record<string, string> | null> {
  const extra = requestCount(parsed) - 1;
  if (extra < 1) return null;
  const decision = await consumeQuota(deps.quota, principal.userId, deps.config.rateLimitPerHour, deps.clock.now(), extra);
  const headers = quotaHeaders(decision);
  if (!decision.allowed) {
    throw new ApiError(
      429,
      "rate_limited",
      `This batch of ${extra + 1} requests needs ${extra + 1} units of the hourly quota of ${decision.limit}; fewer are left. Send fewer requests per batch or retry after ${decision.retryAfter} s.`,
      { headers },
    );
  }
  return headers;
}
