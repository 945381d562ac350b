/**
 * The `scope` parameter (src/docs/notes/oauth.md, RFC 6749 §3.3): split on any whitespace, `offline_access`
 * accepted and ignored (refresh tokens are always issued), default `crew:read`, unknown scopes
 * refused. Capping by plan: what a consent can grant. Pure, no I/O.
 */
import { canonicalScopes, isOAuthScope, type OAuthScope, type Plan, planTier } from "../domain.ts";

export const DEFAULT_SCOPES: readonly OAuthScope[] = ["crew:read"];

/** Scopes clients commonly ask for that mean nothing more here. */
const IGNORED = new Set(["offline_access"]);

export type ScopeParse = { ok: true; scopes: OAuthScope[] } | { ok: false; unknown: string[] };

export function parseScopeParam(raw: string | null | undefined, fallback: readonly OAuthScope[] = DEFAULT_SCOPES): ScopeParse {
  const words = (raw ?? "").split(/\s+/).filter((w) => w !== "" && !IGNORED.has(w));
  const unknown = words.filter((w) => !isOAuthScope(w));
  if (unknown.length > 0) return { ok: false, unknown: [...new Set(unknown)] };
  const scopes = canonicalScopes(words as OAuthScope[]);
  return { ok: true, scopes: scopes.length > 0 ? scopes : [...fallback] };
}

/**
 * What a user on `plan` can grant of `requested`: nothing on a plan without API access; on a
 * read plan, `crew:read` for any request; on a write plan, what was asked.
 */
export function capScopesToPlan(requested: readonly OAuthScope[], plan: Plan): OAuthScope[] {
  switch (planTier(plan)) {
    case "none":
      return [];
    case "read":
      return requested.length > 0 ? ["crew:read"] : [];
    case "write":
      return canonicalScopes(requested);
  }
}

/** Whether every scope of `subset` was granted (a refresh may narrow, never widen). */
export function isScopeSubset(subset: readonly OAuthScope[], granted: readonly OAuthScope[]): boolean {
  return subset.every((s) => granted.includes(s));
}

/** The consent page's "also allow changes" box (src/docs/notes/oauth.md). */
export const ALSO_WRITE_FIELD = "also_write";

/**
 * What the person approves: the request's scopes capped by the plan; when the request named no
 * scope (so crew:read by default) and the person ticked "also allow changes", crew:write too,
 * where the plan allows it.
 */
export function approvedScopes(
  request: { scopes: readonly OAuthScope[]; scopeSent: boolean },
  plan: Plan,
  alsoWrite: boolean,
): OAuthScope[] {
  const asked = !request.scopeSent && alsoWrite ? canonicalScopes([...request.scopes, "crew:write"]) : [...request.scopes];
  return capScopesToPlan(asked, plan);
}
