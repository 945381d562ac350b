/** Owner pages (SPEC §12): members get a 403 page that says who can help, with a way back. */
import type { Context } from "hono";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { messagePage } from "../html/layout.ts";
import { accountOf, requirePageSession } from "../html/page-frame.ts";

export const ownersOnly = (c: Context<AppEnv>, found: ValidSession) =>
  messagePage(
    c,
    403,
    "Owners only",
    "This page manages the organization: only its owners can open it. Ask an owner if you need a change here.",
    { href: "/dashboard", label: "Back to the dashboard" },
    accountOf(found),
  );

/** The signed-in owner, or the response to send instead (sign-in redirect, 403 page). */
export async function requireOwner(deps: AppDeps, c: Context<AppEnv>): Promise<ValidSession | Response> {
  const found = await requirePageSession(deps, c);
  if (found instanceof Response) return found;
  return isOwner(found.user) ? found : ownersOnly(c, found);
}
