/**
 * Settings pages live under /settings/*; their first addresses under /dashboard/* keep working for
 * bookmarks and old links: a GET is moved for good (301), a form post keeps its method and body (308).
 */
import { Hono } from "hono";
import type { AppEnv } from "../deps.ts";

const MOVED = ["keys", "calendar", "webhooks"] as const;

export function movedPageRoutes(): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  for (const name of MOVED) {
    for (const path of [`/dashboard/${name}`, `/dashboard/${name}/*`]) {
      router.on(["GET", "HEAD", "POST"], path, (c) => {
        const url = new URL(c.req.url);
        const target = `/settings/${url.pathname.slice("/dashboard/".length)}${url.search}`;
        return c.redirect(target, c.req.method === "POST" ? 308 : 301);
      });
    }
  }
  return router;
}
