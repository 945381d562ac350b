/** The principal of an endpoint that takes the signed-in session instead of a Bearer credential. */
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { assertSameOrigin } from "../http/csrf.ts";
import { readSession, sessionPrincipalOf } from "./sessions.ts";

export async function sessionPrincipal(deps: AppDeps, c: Context<AppEnv>): Promise<Principal> {
  if (c.req.header("authorization")) {
    throw new ApiError(401, "unauthorized", "This endpoint needs a signed-in session (sign in at /sign-in), not a Bearer credential.");
  }
  const found = await readSession(deps, c);
  if (!found) throw new ApiError(401, "unauthorized", "Sign in first: this endpoint needs a signed-in session (/sign-in).");
  assertSameOrigin(c.req.raw, deps.config.baseUrl);
  return sessionPrincipalOf(found);
}
