import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../app.ts";

export function mcpRoutes(_deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  return router;
}
