/**
 * The gate in front of every protected endpoint, in the order SPEC §4 gives:
 * credential (401) → quota (429); plan and scope (403) and input (400) follow in the projection.
 * Every response after authentication, errors included, carries the X-RateLimit-* headers.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";
import { ApiError } from "../http/errors.ts";
import { authenticateBearer } from "./bearer.ts";
import { consumeQuota, quotaHeaders } from "./quota.ts";

export function protect(): MiddlewareHandler<AppEnv> {
  return async function protectMiddleware(c, next) {
    const { db, config, clock } = c.get("deps");
    const principal = await authenticateBearer(db, config, c.req.header("authorization"), clock.now());
    const quota = await consumeQuota(db, principal.userId, config.rateLimitPerHour, clock.now());
    const headers = quotaHeaders(quota);
    if (!quota.allowed) {
      throw new ApiError(429, "rate_limited", `Hourly request quota of ${quota.limit} spent; retry after ${quota.retryAfter} s.`, {
        headers,
      });
    }
    c.set("principal", principal);
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
