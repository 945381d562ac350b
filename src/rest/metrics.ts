/**
 * GET /metrics (Prometheus text format): off — 404 like any unknown path — unless METRICS_TOKEN is
 * set, then only with `Authorization: Bearer $METRICS_TOKEN` (401 otherwise). Not quota-counted:
 * a scraper is not a user. See src/docs/notes/metrics.md.
 */
import { Hono } from "hono";
import { JOBS } from "../agents/jobs.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { sha256Hex, timingSafeEqual } from "../lib/random.ts";
import { storeFigures } from "../store/metrics.ts";

const RUNNER = new Map(JOBS.map((j) => [j.id, j.runner]));

export function metricsRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const token = deps.config.metricsToken;
  if (token === null) return app;
  const expected = sha256Hex(token);
  app.get("/metrics", async (c) => {
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    // Digests compared, so the comparison's time says nothing about the token's length.
    if (!given || !timingSafeEqual(sha256Hex(given), expected)) {
      throw new ApiError(401, "unauthorized", "GET /metrics needs Authorization: Bearer $METRICS_TOKEN.", {
        headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
      });
    }
    const figures = await storeFigures(deps.db);
    const { contentType, body } = await deps.metrics.render({
      ...figures,
      runs: figures.runs.map((r) => ({ ...r, runner: RUNNER.get(r.agent) ?? "external" })),
    });
    return c.body(body, 200, { "Content-Type": contentType, "Cache-Control": "no-store" });
  });
  return app;
}
