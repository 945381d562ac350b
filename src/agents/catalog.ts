/** The fixed crew of 17 agents (SPEC §5) and their default schedules (SPEC §8). */
export const AGENT_CATEGORIES = ["ops", "intelligence", "growth", "revenue", "product"] as const;
export type AgentCategory = (typeof AGENT_CATEGORIES)[number];

export interface AgentDefinition {
  id: string;
  name: string;
  category: AgentCategory;
  /** Cron expression (minute hour day month weekday) in the organization's time zone, or null. */
  schedule: string | null;
}

export const AGENTS: readonly AgentDefinition[] = [
  { id: "standup", name: "Standup", category: "ops", schedule: "0 8,18 * * *" },
  { id: "briefing", name: "Briefing", category: "ops", schedule: "30 7 * * *" },
  { id: "inbox", name: "Inbox", category: "ops", schedule: null },
  { id: "calendar", name: "Calendar", category: "ops", schedule: null },
  { id: "slack", name: "Slack Digest", category: "ops", schedule: null },
  { id: "compliance", name: "Compliance", category: "ops", schedule: null },
  { id: "pulse", name: "Pulse", category: "intelligence", schedule: "0 * * * *" },
  { id: "dna", name: "Company DNA", category: "intelligence", schedule: "0 * * * *" },
  { id: "corpdev", name: "Corp Dev", category: "intelligence", schedule: null },
  { id: "research", name: "Market Research", category: "intelligence", schedule: null },
  { id: "growth", name: "Growth", category: "growth", schedule: null },
  { id: "content", name: "Content", category: "growth", schedule: null },
  { id: "bdr", name: "BDR", category: "growth", schedule: null },
  { id: "revenue", name: "Revenue", category: "revenue", schedule: null },
  { id: "sales", name: "Sales", category: "revenue", schedule: null },
  { id: "finance", name: "Finance", category: "revenue", schedule: null },
  { id: "product", name: "Product", category: "product", schedule: null },
];

export const AGENT_IDS = AGENTS.map((a) => a.id) as [string, ...string[]];

/** The nine values GET /api/mcp/suggestions?agent= accepts (seed spec). */
export const SUGGESTION_AGENTS = ["product", "growth", "revenue", "content", "corpdev", "sales", "bdr", "compliance", "pulse"] as const;

export function isAgentId(id: string): boolean {
  return AGENTS.some((a) => a.id === id);
}
