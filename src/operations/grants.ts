/**
 * Connected applications (src/docs/notes/oauth.md): the OAuth grants of the signed-in user, listed and revoked.
 * REST only, on the browser session (a token must not be able to list or end other grants). The
 * /connected-apps page calls the same functions.
 */
import * as v from "valibot";
import { actorOf } from "../auth/access.ts";
import { OAUTH_SCOPES, type Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { iso, isoOrNull } from "../lib/clock.ts";
import { redirectHost } from "../lib/redirect-uri.ts";
import { recordAudit } from "../store/audit/audit.ts";
import type { Db } from "../store/db.ts";
import { listConnectedApps, revokeGrant } from "../store/oauth/grants.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

const GrantView = v.object({
  id: v.pipe(v.string(), v.description("The grant's id, `grt_…`: what DELETE takes.")),
  clientId: v.string(),
  clientName: v.pipe(v.nullable(v.string()), v.description("The name the application registered with; not verified by Crew.")),
  redirectHost: v.pipe(v.string(), v.description("Where the application received the authorization: its host, or its private-use scheme.")),
  scopes: v.array(v.picklist(OAUTH_SCOPES)),
  resource: v.string(),
  createdAt: DateTime,
  lastUsedAt: v.pipe(v.nullable(DateTime), v.description("When the application last obtained tokens (a code exchange or a refresh).")),
});
export type GrantView = v.InferOutput<typeof GrantView>;

const GrantListing = v.object({ grants: v.array(GrantView) });

interface GrantDeps {
  db: Db;
  clock: { now(): number };
}

export async function listGrantsFor(deps: GrantDeps, principal: Principal): Promise<{ grants: GrantView[] }> {
  const apps = await listConnectedApps(deps.db, principal.userId, deps.clock.now());
  return {
    grants: apps.map((g) => ({
      id: g.id,
      clientId: g.clientId,
      clientName: g.clientName,
      redirectHost: redirectHost(g.redirectUri),
      scopes: g.scopes,
      resource: g.resource,
      createdAt: iso(g.createdAt),
      lastUsedAt: isoOrNull(g.lastUsedAt),
    })),
  };
}

/** Immediate: every token of the grant stops working on its next request. */
export async function revokeGrantFor(deps: GrantDeps, principal: Principal, id: string): Promise<{ ok: true }> {
  // Another user's grant is "not found" too.
  if (!(await revokeGrant(deps.db, id, deps.clock.now(), principal.userId))) {
    throw new ApiError(404, "not_found", "No connected application of yours has this id.");
  }
  await recordAudit(deps.db, principal.orgId, "grant.revoked", actorOf(principal), deps.clock.now(), id);
  return { ok: true };
}

export const listOAuthGrantsOp = defineOperation({
  id: "listOAuthGrants",
  summary: "List your connected applications",
  description:
    "The applications (OAuth clients such as Claude, Cursor or VS Code) the signed-in user has connected to Crew and that still hold a live refresh token, newest first. Needs a signed-in browser session (cookie), not a Bearer credential.",
  input: v.strictObject({}),
  output: GrantListing,
  rest: { method: "GET", path: "/api/oauth/grants", auth: "session", access: null, from: "query", tags: ["Connected applications"] },
  handler: (ctx) => listGrantsFor(ctx, ctx.principal),
});

export const revokeOAuthGrantOp = defineOperation({
  id: "revokeOAuthGrant",
  summary: "Disconnect an application",
  description:
    "Revokes one of the signed-in user's grants (`?id=grt_…`) and every access and refresh token issued under it, at once: the application's next request gets 401 and it must ask for consent again. 404 when the id is not a live grant of this user. Needs a signed-in browser session.",
  input: v.strictObject({
    id: v.pipe(
      v.string("Must be a string."),
      v.regex(/^grt_[0-9A-Z]{26}$/, "Must be a grant id (grt_…)."),
      v.description("The grant's id."),
    ),
  }),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/oauth/grants", auth: "session", access: null, from: "query", tags: ["Connected applications"] },
  handler: (ctx, input) => revokeGrantFor(ctx, ctx.principal, input.id),
});
