/**
 * Subscription plans (SPEC §2). A plan grants a tier: none, read, or write. The plan is read on
 * every request, so a downgrade caps existing keys and tokens at once.
 */
export const PLANS = ["lite", "pro", "operator", "team_starter", "team_growth", "team_enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export const KEY_SCOPES = ["admin", "read", "briefing", "agents"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export type Tier = "none" | "read" | "write";

const tierOf: Record<Plan, Tier> = {
  lite: "none",
  team_starter: "none",
  pro: "read",
  team_growth: "read",
  operator: "write",
  team_enterprise: "write",
};

const rank: Record<Tier, number> = { none: 0, read: 1, write: 2 };

export function planTier(plan: Plan): Tier {
  return tierOf[plan];
}

export function planIncludes(plan: Plan, needed: Exclude<Tier, "none">): boolean {
  return rank[tierOf[plan]] >= rank[needed];
}

/** The cheapest plan that includes a tier: what a 403 plan_upgrade_required names. */
export function cheapestPlanFor(needed: Exclude<Tier, "none">): Plan {
  return needed === "read" ? "pro" : "operator";
}

/** Key scopes a plan lets its user put on a key (SPEC §2 table). */
export function allowedKeyScopes(plan: Plan): KeyScope[] {
  switch (tierOf[plan]) {
    case "none":
      return [];
    case "read":
      return ["read", "briefing", "agents"];
    case "write":
      return ["admin", "read", "briefing", "agents"];
  }
}
