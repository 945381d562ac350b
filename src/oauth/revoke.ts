/**
 * Token revocation (RFC 7009). Revoking an access token ends that token; revoking a refresh token
 * ends the whole grant (§2.1: the access tokens of the same grant should go too). Unknown tokens,
 * and tokens of another client, get the same 200 (§2.2), so the endpoint reveals nothing.
 */
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { sha256Hex } from "../lib/random.ts";
import { revokeGrant } from "../store/oauth/grants.ts";
import { findTokenForRevocation, revokeToken } from "../store/oauth/tokens.ts";
import { authenticateClient } from "./client-auth.ts";
import { invalidRequest, oauthJson } from "./errors.ts";
import { readForm, repeatedParams, single } from "./form.ts";

export async function revoke(deps: AppDeps, c: Context<AppEnv>): Promise<Response> {
  const { db, clock } = deps;
  const form = await readForm(c.req.raw);
  const repeated = repeatedParams(form, []);
  if (repeated.length > 0) throw invalidRequest(`repeated: ${repeated.join(", ")}`);
  // A client that identifies itself must authenticate; holding the token is enough otherwise
  // (revoking can only take access away from whoever holds it).
  const client = await authenticateClient(db, c.req.header("authorization"), form, true);
  const token = single(form, "token");
  if (!token) throw invalidRequest("token missing");
  const found = await findTokenForRevocation(db, sha256Hex(token));
  if (found && (client === null || client.id === found.clientId)) {
    if (found.kind === "refresh") await revokeGrant(db, found.grantId, clock.now());
    else await revokeToken(db, sha256Hex(token), clock.now());
  }
  return oauthJson({});
}
