/**
 * The static files of the web UI, served by Crew itself (no CDN): one stylesheet, one small
 * script (copy buttons, confirm dialogs) and the icon. They are real files in src/web/assets/,
 * embedded as strings by scripts/build-web-assets.ts so `src/` needs no file system and runs
 * unchanged on Node, Deno, Bun and in the single binary (src/docs/notes/web-plumbing.md).
 */
import { Hono } from "hono";
import type { AppEnv } from "../deps.ts";
import { WEB_ASSET_FILES } from "./assets/files.generated.ts";

const CSS = WEB_ASSET_FILES["crew.css"];
const JS = WEB_ASSET_FILES["crew.js"];
const ICON = WEB_ASSET_FILES["crew.svg"];

export function assetRoutes(): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const headers = (type: string) => ({
    "Content-Type": type,
    "Cache-Control": "public, max-age=300",
    "X-Content-Type-Options": "nosniff",
  });
  router.get("/static/crew.css", (c) => c.body(CSS, 200, headers("text/css; charset=utf-8")));
  router.get("/static/crew.svg", (c) => c.body(ICON, 200, headers("image/svg+xml")));
  router.get("/favicon.ico", (c) => c.body(ICON, 200, headers("image/svg+xml")));
  router.get("/static/crew.js", (c) => c.body(JS, 200, headers("text/javascript; charset=utf-8")));
  return router;
}
