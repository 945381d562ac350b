/** Owner pages (src/docs/notes/web-app.md): members get a 403 page that says who can help, with a way back. */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppEnv } from "../deps.ts";
import { messagePage } from "../html/layout.ts";
import { accountOf } from "../html/page-frame.ts";

export const ownersOnly = (c: Context<AppEnv>, found: ValidSession) =>
  messagePage(
    c,
    403,
    "Owners only",
    "This page manages the organization: only its owners can open it. Ask an owner if you need a change here.",
    { href: "/dashboard", label: "Back to the dashboard" },
    accountOf(found),
  );

/**
 * Hono middleware after `session` for pages that show owner-only settings: members get the 403
 * page. Writes need no guard of their own: the operation's `role: "owner"` refuses a member.
 */
export function owner() {
  return createMiddleware<AppEnv>(async (c, next) => {
    const found = c.var.session;
    if (!isOwner(found.user)) return ownersOnly(c, found);
    await next();
  });
}
