/**
 * "Run now": an owner starts one agent at once, from its page (/agents/{id}), or with the MCP tool
 * `crew_run_agent`. Model-backed agents run with the connected model, the built-in runners compose
 * from stored data, and agents run by an external program are not started here (that program
 * reports through the run API). A successful run resumes an agent that had paused itself
 * (src/agents/auto-pause.ts).
 */
import type { Organization } from "../store/orgs.ts";
import { resumeAgent } from "./auto-pause.ts";
import { jobOf } from "./jobs.ts";
import { type ModelRunDeps, runModelAgent } from "./model-run.ts";
import { hasRunner, runBuiltIn } from "./runners.ts";

export interface RunNowResult {
  /** null when the agent could not run (no model, no source, over its budget): `summary` says why. */
  runId: string | null;
  agentId: string;
  status: "ok" | "error" | "skipped";
  summary: string;
}

/** null: the agent is run by an external program, not by Crew. */
export async function runAgentNow(deps: ModelRunDeps, org: Organization, agentId: string): Promise<RunNowResult | null> {
  let run: RunNowResult;
  if (jobOf(agentId).runner === "model") {
    const { runId, status, summary } = await runModelAgent(deps, org, agentId);
    run = { runId, agentId, status, summary };
  } else if (hasRunner(agentId)) {
    const { runId, status, summary } = await runBuiltIn(deps, org, agentId);
    run = { runId, agentId, status, summary };
  } else {
    return null;
  }
  if (run.status === "ok") await resumeAgent(deps, org.id, agentId);
  return run;
}
