/**
 * The access log (src/docs/notes/operating.md#logs): one JSON line per request, written when the response is ready —
 * time, request id, method, route pattern (`/api/mcp/actions/:id`, never the raw path, whose
 * segments and query string may carry secrets), status, duration in ms, and the user id and
 * credential kind when the request was authenticated. Never headers, cookies, query strings or
 * bodies. A client that goes away early is logged at info like any other request.
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppDeps, AppEnv } from "../deps.ts";
import { currentTraceId } from "../lib/tracing.ts";

/** The pattern of the route that answered, or "(no route)" for a 404 no route matched. */
export function routePattern(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  const routes = matchedRoutes(c);
  const answered = routes[c.req.routeIndex];
  if (answered && answered.method !== "ALL") return answered.path;
  const handler = [...routes].reverse().find((r) => r.method !== "ALL");
  return handler?.path ?? "(no route)";
}

/** A metric label is a closed set: an unknown method a client invents is "other". */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function accessLog(deps: AppDeps, now: () => number = () => performance.now()): MiddlewareHandler<AppEnv> {
  return async function accessLogMiddleware(c, next) {
    const started = now();
    try {
      await next();
    } finally {
      const route = routePattern(c);
      const elapsed = now() - started;
      deps.metrics.httpRequest(METHODS.has(c.req.method) ? c.req.method : "other", route, c.res.status, elapsed / 1000);
      const principal = c.get("principal");
      const sessionUser = c.get("sessionUserId");
      const traceId = currentTraceId();
      deps.log.info("request", {
        request_id: c.get("requestId"),
        method: c.req.method,
        route,
        status: c.res.status,
        duration_ms: Math.round(elapsed * 10) / 10,
        ...(traceId ? { trace_id: traceId } : {}),
        ...(principal
          ? { user_id: principal.userId, credential: principal.credential.type }
          : sessionUser
            ? { user_id: sessionUser, credential: "session" }
            : {}),
      });
    }
  };
}
