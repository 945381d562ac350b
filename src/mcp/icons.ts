/**
 * Icons for the MCP server and its tools (src/docs/notes/mcp-resources-and-prompts.md), served by Crew itself: a client shows them
 * without contacting any other host. Plain SVG, `currentColor`-free so they read on light and dark
 * backgrounds alike.
 */
import type { Icon } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import type { AppEnv } from "../deps.ts";

const frame = (body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64"><rect width="64" height="64" rx="14" fill="#1f3a5f"/>${body}</svg>`;

/** crew: three heads in a row; read: an eye-like lens; write: a pencil stroke. */
const ICONS = {
  crew: frame(
    '<circle cx="18" cy="26" r="7" fill="#9fd3ff"/><circle cx="32" cy="22" r="8" fill="#ffffff"/><circle cx="46" cy="26" r="7" fill="#9fd3ff"/><path d="M8 50c2-9 8-13 14-13s9 2 10 4c1-2 4-4 10-4s12 4 14 13z" fill="#ffffff"/>',
  ),
  read: frame(
    '<path d="M10 32c6-10 14-15 22-15s16 5 22 15c-6 10-14 15-22 15S16 42 10 32z" fill="#ffffff"/><circle cx="32" cy="32" r="7" fill="#1f3a5f"/>',
  ),
  write: frame('<path d="M16 48l4-12 22-22 8 8-22 22z" fill="#ffffff"/><path d="M16 48l12-4-8-8z" fill="#9fd3ff"/>'),
} as const;

export type IconName = keyof typeof ICONS;

export const iconPath = (name: IconName) => `/icons/${name}.svg`;

/** The `icons` field of an MCP object: one scalable SVG on this server. */
export function icons(baseUrl: string, name: IconName): Icon[] {
  return [{ src: `${baseUrl}${iconPath(name)}`, mimeType: "image/svg+xml", sizes: ["any"] }];
}

export function iconRoutes(): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/icons/:file", function icon(c) {
    const name = c.req.param("file").replace(/\.svg$/, "");
    if (!Object.hasOwn(ICONS, name) || !c.req.param("file").endsWith(".svg")) return c.notFound();
    return c.body(ICONS[name as IconName], 200, {
      "Content-Type": "image/svg+xml",
      "Cache-Control": "public, max-age=86400",
      // Any origin may draw it (browser MCP clients); nothing here depends on who asks.
      "Access-Control-Allow-Origin": "*",
    });
  });
  return router;
}
