/**
 * What `initialize` says to a client (src/docs/notes/mcp-resources-and-prompts.md): the caller's plan and what it includes. A client
 * with no tools shows "Connected, 0 tools" and nothing else (src/docs/notes/mcp-resources-and-prompts.md#plans-instructions-and-icons), so the instructions and
 * the empty tools/list are where a person learns why, and which plan adds them.
 */
import type { Principal } from "../domain.ts";
import { cheapestPlanFor, planTier } from "../domain.ts";

const START =
  "Crew holds what a crew of 17 operations agents found: start with crew_briefing (what to focus on today) or crew_standup, " +
  "and check freshness with crew_agent_status. Resources (crew://briefing, crew://standup/{mode}, crew://profile, crew://agents, " +
  "crew://actions/{id}, crew://agents/{id}/runs) and prompts (plan_my_day, review_queue, weekly_review) hold the same data.";

/** Why a caller sees no tools, resources or prompts; null when the plan includes some. */
export function noAccessExplanation(principal: Principal): string | null {
  if (planTier(principal.plan) !== "none") return null;
  return (
    `Your Crew plan (${principal.plan}) does not include access over MCP or the API, so this server offers you no tools, resources or prompts. ` +
    `The ${cheapestPlanFor("read")} plan adds the read tools (briefing, standup, suggestions, company profile, agent status, action queue); ` +
    `the ${cheapestPlanFor("write")} plan adds the write tools too (actions, contacts, handoffs, insights, calendar). Change plan in the Crew dashboard.`
  );
}

export function instructionsFor(principal: Principal): string {
  const none = noAccessExplanation(principal);
  if (none) return none;
  if (planTier(principal.plan) === "read") {
    return (
      `${START} Your plan (${principal.plan}) includes the read tools and resources; adding actions, contacts, handoffs and insights, ` +
      `the calendar tools and the hand_off prompt need the ${cheapestPlanFor("write")} plan.`
    );
  }
  return `${START} Your plan (${principal.plan}) includes the write tools too: add and update actions, contacts, handoffs and insights, find time and create events on a connected calendar, and hand_off work to an agent.`;
}

/** The explanation of a tools/list that came out empty although the plan includes tools: the credential's scopes. */
export function emptyToolsExplanation(principal: Principal): string {
  return (
    noAccessExplanation(principal) ??
    "This credential's scopes allow none of Crew's tools: an API key needs scope read (or briefing/agents) for the read tools and admin for the write tools; an OAuth token crew:read or crew:write."
  );
}
