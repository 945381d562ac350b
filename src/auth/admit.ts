/**
 * Admission of a Bearer request, in the order src/docs/notes/access.md#order-of-checks gives: credential (401) → quota (429).
 * One function for the HTTP gate (protect.ts) and the stdio MCP server; plan and scope (403) and
 * input (400) follow in the operation (operations/invoke.ts).
 */

import type { AppDeps } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { authenticateBearer } from "./bearer.ts";
import { consumeQuota, quotaHeaders } from "./quota.ts";

export interface Admission {
  principal: Principal;
  /** X-RateLimit-* headers every response after authentication carries. */
  headers: Record<string, string>;
}

export async function admit(
  deps: Pick<AppDeps, "db" | "config" | "clock" | "quota"> & Partial<Pick<AppDeps, "metrics">>,
  authorization: string | undefined,
): Promise<Admission> {
  const { db, config, clock } = deps;
  const principal = await authenticateBearer(db, config, authorization, clock.now());
  const quota = await consumeQuota(deps.quota, principal.userId, config.rateLimitPerHour, clock.now());
  const headers = quotaHeaders(quota);
  if (!quota.allowed) {
    deps.metrics?.quotaRefused();
    throw new ApiError(429, "rate_limited", `Hourly request quota of ${quota.limit} spent; retry after ${quota.retryAfter} s.`, {
      headers,
    });
  }
  return { principal, headers };
}
