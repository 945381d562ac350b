/**
 * `crew_run_agent`: an owner runs one agent now from an MCP client — the same run as "Run now" on
 * the agent's page (src/agents/run-agent.ts). Clients that declare the tasks extension get it as a
 * task (src/mcp/tasks.ts); the others get the finished run's id and status.
 */
import * as v from "valibot";
import { whatIsMissing } from "../agents/model-run.ts";
import { runAgent } from "../agents/run-agent.ts";
import { assertAgent } from "../agents/run-api.ts";
import { writeAccess } from "../auth/access.ts";
import { ApiError } from "../errors.ts";
import { defineOperation } from "./registry.ts";

export const runAgentNowOp = defineOperation({
  id: "runAgentNow",
  role: "owner",
  summary: "Run an agent now",
  description:
    "Runs one agent now, as Run now on its page does: model-backed agents with the connected model, standup, briefing, pulse and dna from stored data. Agents run by a program of yours are started by that program (the run API). Answers the run's id, status (ok, error, skipped) and summary; the run is listed at crew://agents/{id}/runs. Organization owners only.",
  input: v.strictObject({ agent: v.pipe(v.string(), v.description("The agent's id, one of the 17 (e.g. standup, sales).")) }),
  output: v.object({
    runId: v.nullable(v.string()),
    agentId: v.string(),
    status: v.picklist(["ok", "error", "skipped"]),
    summary: v.string(),
  }),
  mcp: {
    name: "crew_run_agent",
    title: "Run an agent now",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    links: (out) => [{ uri: `crew://agents/${out.agentId}/runs`, name: "agent-runs" }],
  },
  handler: async (ctx, input) => {
    assertAgent(input.agent);
    const run = await runAgent(ctx, ctx.principal.orgId, input.agent, { kind: "now" });
    if (run === null) {
      throw new ApiError(
        409,
        "not_run_by_crew",
        `${input.agent} is run by a program of yours, not by Crew: that program starts its runs through the run API (POST /api/agents/${input.agent}/runs).`,
      );
    }
    if (run.runId === null) throw new ApiError(409, "cannot_run_yet", `${input.agent} cannot run yet: ${run.summary}`);
    return { runId: run.runId, agentId: run.agentId, status: run.status, summary: run.summary };
  },
});

/**
 * What an agent lacks to run now (a model, a source), or null: read through the door by
 * `crew_run_agent`'s question before it runs (src/mcp/confirmations.ts), with that tool's access
 * and role. No projection of its own; the dashboard says the same in each agent's summary.
 */
export const getAgentReadinessOp = defineOperation({
  id: "getAgentReadiness",
  role: "owner",
  summary: "What an agent lacks to run",
  description: "What one agent lacks to run now (a model, a source), or null when it can run.",
  input: v.strictObject({ agent: v.string() }),
  output: v.object({ missing: v.nullable(v.string()) }),
  handler: async (ctx, input) => {
    assertAgent(input.agent);
    return { missing: await whatIsMissing(ctx, ctx.principal.orgId, input.agent) };
  },
});
