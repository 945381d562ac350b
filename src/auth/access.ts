/**
 * What an operation needs, and whether a principal has it (src/docs/notes/access.md#scopes): the effective permission of
 * a request is (credential scopes) ∩ (what the plan includes). Pure policy, no I/O.
 */
import type { Credential, KeyScope, Principal } from "../domain.ts";
import { cheapestPlanFor, planIncludes } from "../domain.ts";
import { ApiError } from "../errors.ts";
import type { AuditActor } from "../store/audit/audit.ts";

/** The requirement of one operation in one projection (REST or MCP). */
export interface Access {
  tier: "read" | "write";
  /** Key scopes that pass, narrowest first (the first is named in `required_scope`). */
  keyScopes: readonly KeyScope[];
  oauthScope: "crew:read" | "crew:write";
}

/** Read tier: key scope `read` (or a narrower one given first) or `admin`; OAuth `crew:read`. */
export function readAccess(narrowKeyScope?: "briefing" | "agents"): Access {
  return {
    tier: "read",
    keyScopes: narrowKeyScope ? [narrowKeyScope, "read", "admin"] : ["read", "admin"],
    oauthScope: "crew:read",
  };
}

/** Write tier, and admin-only reads such as the action queue on REST: key `admin`, OAuth `crew:write`. */
export function writeAccess(tier: "read" | "write" = "write"): Access {
  return { tier, keyScopes: ["admin"], oauthScope: "crew:write" };
}

/** The one place a principal is built: a user (from any credential's owner row) and the credential it came by. */
export function principalFor(
  userId: string,
  user: Pick<Principal, "orgId" | "email" | "name" | "plan" | "role">,
  credential: Credential,
): Principal {
  return { userId, orgId: user.orgId, email: user.email, name: user.name, plan: user.plan, role: user.role, credential };
}

/** Who the audit log names for what a principal does: the CLI is actor `cli`, everyone else themselves. */
export function actorOf(principal: Pick<Principal, "userId" | "credential">): AuditActor {
  return principal.credential.type === "cli" ? { kind: "cli" } : { kind: "user", userId: principal.userId };
}

/** What a `created_by` column stores for a principal's write: the user's id, or `cli`. */
export const createdByOf = (principal: Pick<Principal, "userId" | "credential">): string =>
  principal.credential.type === "cli" ? "cli" : principal.userId;

/** `crew:write` includes `crew:read`; `crew:admin` grants exactly what `crew:write` grants. */
export function oauthScopeSatisfies(held: readonly string[], needed: "crew:read" | "crew:write"): boolean {
  const writes = held.includes("crew:write") || held.includes("crew:admin");
  return needed === "crew:read" ? writes || held.includes("crew:read") : writes;
}

function credentialHas(credential: Credential, access: Access): boolean {
  switch (credential.type) {
    case "api_key":
      return credential.scopes.some((s) => access.keyScopes.includes(s));
    case "oauth":
      return oauthScopeSatisfies(credential.scopes, access.oauthScope);
    case "session":
    case "cli":
      return true;
  }
}

export function requiredScopeName(credential: Credential, access: Access): string {
  return credential.type === "oauth" ? access.oauthScope : (access.keyScopes[0] ?? "admin");
}

/** Why a principal may not run an operation, or null when it may. Plan first: no scope fixes a plan. */
export function denial(principal: Principal, access: Access): ApiError | null {
  if (!planIncludes(principal.plan, access.tier)) {
    const plan = cheapestPlanFor(access.tier);
    return new ApiError(
      403,
      "plan_upgrade_required",
      `Your plan (${principal.plan}) does not include ${access.tier === "read" ? "read" : "write"} access over the API or MCP; the ${plan} plan does.`,
    );
  }
  if (!credentialHas(principal.credential, access)) {
    const scope = requiredScopeName(principal.credential, access);
    return new ApiError(403, "insufficient_scope", `This credential lacks the scope this operation needs: ${scope}.`, {
      required_scope: scope,
    });
  }
  return null;
}

export function authorize(principal: Principal, access: Access): void {
  const error = denial(principal, access);
  if (error) throw error;
}
