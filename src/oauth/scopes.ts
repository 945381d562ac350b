/**
 * The `scope` parameter (SPEC §6, RFC 6749 §3.3): split on any whitespace, `offline_access`
 * accepted and ignored (refresh tokens are always issued), default `crew:read`, unknown scopes
 * refused. Capping by plan: what a consent can grant. Pure, no I/O.
 */
import { OAUTH_SCOPES, type OAuthScope } from "../auth/access.ts";
import { type Plan, planTier } from "../auth/plans.ts";

export const DEFAULT_SCOPES: readonly OAuthScope[] = ["crew:read"];

/** Scopes clients commonly ask for that mean nothing more here. */
const IGNORED = new Set(["offline_access"]);

export type ScopeParse = { ok: true; scopes: OAuthScope[] } | { ok: false; unknown: string[] };

const isOAuthScope = (s: string): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s);

/** Known scopes in canonical order, without duplicates. */
export function canonicalScopes(scopes: Iterable<OAuthScope>): OAuthScope[] {
  const set = new Set(scopes);
  return OAUTH_SCOPES.filter((s) => set.has(s));
}

export function parseScopeParam(raw: string | null | undefined, fallback: readonly OAuthScope[] = DEFAULT_SCOPES): ScopeParse {
  const words = (raw ?? "").split(/\s+/).filter((w) => w !== "" && !IGNORED.has(w));
  const unknown = words.filter((w) => !isOAuthScope(w));
  if (unknown.length > 0) return { ok: false, unknown: [...new Set(unknown)] };
  const scopes = canonicalScopes(words as OAuthScope[]);
  return { ok: true, scopes: scopes.length > 0 ? scopes : [...fallback] };
}

/** The space-separated wire form. */
export const scopeString = (scopes: readonly OAuthScope[]) => canonicalScopes(scopes).join(" ");

/** Scopes stored in the database: space-separated; unknown words dropped. */
export const scopesFromString = (value: string): OAuthScope[] => canonicalScopes(value.split(/\s+/).filter(isOAuthScope));

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
