/**
 * createApp(deps): the one Fetch handler. Every route of Crew is mounted here, in one place;
 * the rest of the behaviour lives in the folder of its concern.
 */
import { type Context, Hono } from "hono";
import { protect } from "./auth/protect.ts";
import type { AppDeps, AppEnv } from "./deps.ts";
import { docsRoutes } from "./docs/routes.ts";
import { ApiError } from "./errors.ts";
import { accessLog } from "./http/access-log.ts";
import { htmlErrorPage, wantsHtmlPage } from "./http/error-page.ts";
import { apiVersion, renderError, requestId } from "./http/middleware.ts";
import { onePublicAddress } from "./http/public-address.ts";
import { pageSecurityHeaders } from "./http/security-headers.ts";
import { traceRequests } from "./http/tracing.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { operations } from "./operations/index.ts";
import { agentTriggerRoute } from "./rest/agent-trigger.ts";
import { metricsRoutes } from "./rest/metrics.ts";
import { restRouter, sessionPaths } from "./rest/router.ts";
import { webRoutes } from "./web/routes.ts";

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use(
    "*",
    requestId(() => deps.clock.now()),
  );
  app.use("*", onePublicAddress(deps.config));
  app.use("*", traceRequests);
  app.use("*", accessLog(deps));
  app.use("*", pageSecurityHeaders);
  app.use("/api/mcp/*", apiVersion);
  // Browsers asking for a page get the error as HTML with a way back (src/docs/notes/web-app.md); API clients the envelope.
  const renderForClient = (error: unknown, c: Context<AppEnv>) => {
    const response = renderError(deps, error, c);
    return wantsHtmlPage(c) ? htmlErrorPage(response) : response;
  };
  app.onError(renderForClient);
  // Returned, not thrown: Hono calls the not-found handler outside the error boundary of the
  // middleware around it, and a thrown error would skip their after-work (X-RateLimit-* headers).
  app.notFound((c) => renderForClient(new ApiError(404, "not_found", "No such endpoint; see /docs for the API reference."), c));

  // Process and database health: not protected, not quota-counted.
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/readyz", async (c) => {
    try {
      await deps.db.execute("SELECT 1");
      return c.json({ ok: true });
    } catch {
      return c.json({ ok: false }, 503);
    }
  });

  app.route("/", metricsRoutes(deps));

  // Before the Bearer gate: a signed event needs no credential (src/rest/agent-trigger.ts checks each way in).
  app.post("/api/agents/:id/trigger", agentTriggerRoute(deps));
  const gate = protect(deps);
  const sessionOnly = sessionPaths(operations);
  // Every Bearer-protected area (src/docs/notes/access.md scope table); session-only operations inside them are skipped.
  for (const area of ["/api/mcp/*", "/api/agents/*", "/api/webhooks", "/api/webhooks/*", "/api/integrations/*"]) {
    app.use(area, async function bearerGate(c, next) {
      if (sessionOnly.has(c.req.path)) return next();
      return gate(c, next);
    });
  }
  app.route("/", restRouter(deps, operations));
  app.route("/", mcpRoutes(deps));
  app.route("/", oauthRoutes(deps));
  app.route("/", docsRoutes(deps));
  app.route("/", webRoutes(deps));
  return app;
}
