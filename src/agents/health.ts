/** Agent health from runs (src/docs/notes/rest-api.md): pure, so staleness is tested with any clock. */
import { DAY, HOUR } from "../lib/clock.ts";
import type { AgentRunSummary } from "../store/runs/agents.ts";

export type Health = "green" | "stale" | "error" | "never_ran";

export function healthOf(agent: AgentRunSummary, now: number): Health {
  if (agent.lastStatus === null) return "never_ran";
  if (agent.lastStatus === "error") return "error";
  if (agent.okFinishedAt === null || now - agent.okFinishedAt > DAY) return "stale";
  return "green";
}

/** Hours since the latest run, one decimal; null if the agent never ran. */
export function hoursAgo(agent: AgentRunSummary, now: number): number | null {
  if (agent.lastFinishedAt === null) return null;
  return Math.round(((now - agent.lastFinishedAt) / HOUR) * 10) / 10;
}

export function summaryOf(agent: AgentRunSummary): string {
  if (agent.lastStatus === null) return "Has not run yet.";
  if (agent.lastStatus === "error") return agent.lastSummary || `Last run failed: ${agent.lastError ?? "no detail"}`;
  return agent.okSummary || agent.lastSummary || "Ran without a summary.";
}
