/**
 * One server span per request (src/docs/notes/tracing.md), named by method and route pattern
 * (`POST /api/mcp/actions/:id`, never the raw path: its segments and query may carry ids and
 * secrets), continuing the caller's trace when the request carries a W3C `traceparent`. Runs
 * outside the access log, so the log line names the trace id. With tracing off it is a plain
 * `next()`.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";
import { inSpan, tracingEnabled } from "../lib/tracing.ts";
import { routePattern } from "./access-log.ts";

export const traceRequests: MiddlewareHandler<AppEnv> = async function traceRequests(c, next) {
  if (!tracingEnabled()) return next();
  await inSpan(
    c.req.method,
    { "http.request.method": c.req.method },
    async (span) => {
      await next();
      const route = routePattern(c);
      span?.rename(`${c.req.method} ${route}`);
      span?.set({ "http.route": route, "http.response.status_code": c.res.status, "crew.request_id": String(c.get("requestId") ?? "") });
      if (c.res.status >= 500) span?.fail(`status ${c.res.status}`);
    },
    { kind: "server", parent: (name) => c.req.header(name) },
  );
};
