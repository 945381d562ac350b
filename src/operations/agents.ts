import * as v from "valibot";
import { healthOf, hoursAgo, summaryOf } from "../agents/health.ts";
import { missingByAgent } from "../agents/model-run.ts";
import { readAccess } from "../auth/access.ts";
import { AGENT_CATEGORIES } from "../domain.ts";
import { iso, isoOrNull } from "../lib/clock.ts";
import { listOpenAlerts } from "../store/integrations/alerts.ts";
import { listAgentsWithRuns } from "../store/runs/agents.ts";
import { defineOperation, type OperationContext } from "./registry.ts";
import { DateTime } from "./schemas.ts";

export const IntegrationAlert = v.object({
  service: v.pipe(v.string(), v.description("Integration name, e.g. google, slack, calendar.")),
  severity: v.picklist(["critical", "warning"]),
  message: v.pipe(v.string(), v.description("What is wrong and how to fix it.")),
  flaggedAt: DateTime,
});

export const AgentStatus = v.object({
  id: v.string(),
  name: v.string(),
  category: v.picklist(AGENT_CATEGORIES),
  health: v.pipe(
    v.picklist(["green", "stale", "error", "never_ran"]),
    v.description("never_ran: no run; error: latest run failed; stale: latest success over 24 h ago; else green."),
  ),
  generatedAt: v.pipe(v.nullable(DateTime), v.description("Time of the latest successful run.")),
  hoursAgo: v.pipe(v.nullable(v.number()), v.description("Hours since the latest run, one decimal; null if never ran.")),
  summary: v.string(),
  hasData: v.boolean(),
  paused: v.pipe(
    v.boolean(),
    v.description("Paused after 3 scheduled runs in a row failed; the summary says why. Not scheduled until an owner resumes it."),
  ),
});

export const AgentDashboard = v.object({
  total: v.number(),
  healthy: v.number(),
  stale: v.number(),
  errors: v.number(),
  neverRan: v.number(),
  agents: v.array(AgentStatus),
  integrationAlerts: v.array(IntegrationAlert),
});

export type AgentDashboard = v.InferOutput<typeof AgentDashboard>;

/**
 * Shared by the REST/MCP operation and the web dashboard. An agent that never ran and cannot run
 * by itself says what it lacks (src/docs/notes/model.md: "Needs a model: …", the missing source).
 */
export async function agentDashboard(
  deps: Pick<OperationContext, "db" | "config" | "clock">,
  orgId: string,
  userId: string | null,
  now: number,
): Promise<AgentDashboard> {
  const db = deps.db;
  const [agents, alerts, missing] = await Promise.all([
    listAgentsWithRuns(db, orgId),
    listOpenAlerts(db, orgId, userId),
    missingByAgent(deps, orgId),
  ]);
  const statuses = agents.map((a) => ({
    id: a.id,
    name: a.name,
    category: a.category as (typeof AGENT_CATEGORIES)[number],
    health: healthOf(a, now),
    generatedAt: isoOrNull(a.okFinishedAt),
    hoursAgo: hoursAgo(a, now),
    summary: a.pausedReason ?? ((a.lastStatus === null && missing.get(a.id)) || summaryOf(a)),
    hasData: a.okHasData,
    paused: a.pausedReason !== null,
  }));
  const count = (h: string) => statuses.filter((s) => s.health === h).length;
  return {
    total: statuses.length,
    healthy: count("green"),
    stale: count("stale"),
    errors: count("error"),
    neverRan: count("never_ran"),
    agents: statuses,
    integrationAlerts: alerts.map((a) => ({ ...a, flaggedAt: iso(a.flaggedAt) })),
  };
}

export const getAgentsOp = defineOperation({
  id: "getAgents",
  summary: "Agent health dashboard",
  description:
    "Health of the 17 agents (green, stale, error, never_ran), when each last ran and a one-line summary of its latest output, with counts that add up to the total and any open integration alerts (critical first). Use it to check whether the crew's data is fresh before relying on it.",
  input: v.strictObject({}),
  output: AgentDashboard,
  rest: { method: "GET", path: "/api/mcp/agents", access: readAccess("agents"), from: "query", tags: ["Agents"] },
  mcp: {
    name: "crew_agent_status",
    title: "Agent status",
    access: readAccess("agents"),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    links: () => [{ uri: "crew://agents", name: "agents" }],
  },
  resource: { uri: "crew://agents", name: "agents", title: "Agent health", access: readAccess("agents") },
  handler: (ctx) => agentDashboard(ctx, ctx.principal.orgId, ctx.principal.userId, ctx.clock.now()),
});
