/**
 * The gate in front of every protected endpoint, in the order src/docs/notes/access.md#order-of-checks gives:
 * credential (401) → quota (429); plan and scope (403) and input (400) follow in the projection.
 * Every response after authentication, errors included, carries the X-RateLimit-* headers.
 */
import type { MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { admit } from "./admit.ts";

export function protect(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async function protectMiddleware(c, next) {
    const { principal, headers } = await admit(deps, c.req.header("authorization"));
    c.set("principal", principal);
    await next();
    // A route that took more units afterwards (an MCP batch) has set the newer counts already.
    for (const [name, value] of Object.entries(headers)) if (!c.res.headers.has(name)) c.res.headers.set(name, value);
  };
}
