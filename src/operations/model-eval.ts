/**
 * Settings → Model → "Run evaluation" (src/docs/notes/eval.md): starts `crew eval` for the
 * organization in the background of this process, one at a time per organization. An operation
 * of the web app only (no REST route, no MCP tool: the CLI runs `crew eval` in the foreground),
 * defined here so the owner rule is the registry's like every other write.
 */
import * as v from "valibot";
import { type AgentScore, EvalRefused, runEval } from "../agents/eval/run.ts";
import { resolveModel } from "../integrations/model/settings.ts";
import { iso } from "../lib/clock.ts";
import { getOrg } from "../store/orgs/orgs.ts";
import { evalHistory, latestEvalOfModel } from "../store/runs/evals.ts";
import { defineOperation, type OperationContext } from "./registry.ts";
import { DateTime } from "./schemas.ts";

export type EvalState = { running: true; since: number } | { running: false; error: string };

/** Evaluations started from the page, by organization: running, or the reason the last one could not run. */
const background = new Map<string, EvalState>();

export const evalStateOf = (orgId: string): EvalState | undefined => background.get(orgId);

/** Whether an evaluation started from the page is still running (tests wait on it). */
export const evalRunning = (orgId: string) => background.get(orgId)?.running === true;

function startInBackground(ctx: OperationContext, orgId: string): boolean {
  if (background.get(orgId)?.running) return false;
  background.set(orgId, { running: true, since: ctx.clock.now() });
  void (async () => {
    try {
      const org = await getOrg(ctx.db, orgId);
      if (!org) throw new EvalRefused("the organization is gone");
      await runEval(ctx, org);
      background.delete(orgId);
    } catch (error) {
      const message = error instanceof EvalRefused ? error.message : "it failed unexpectedly; the server log says why.";
      if (!(error instanceof EvalRefused)) ctx.log.error("background evaluation failed", { org_id: orgId, error: String(error) });
      background.set(orgId, { running: false, error: message });
    }
  })();
  return true;
}

export const startModelEvaluationOp = defineOperation({
  id: "startModelEvaluation",
  role: "owner",
  summary: "Start an evaluation of the connected model",
  description: "Starts the evaluation in the background unless one runs already for the organization; the model page shows its scorecard.",
  input: v.strictObject({}),
  output: v.object({ started: v.boolean() }),
  handler: async (ctx) => ({ started: startInBackground(ctx, ctx.principal.orgId) }),
});

const percent = v.nullable(v.number());

export const getModelEvaluationsOp = defineOperation({
  id: "getModelEvaluations",
  summary: "The connected model's evaluations",
  description:
    "The connected model (null when none) and its latest evaluation per agent (utility, utility under attack, attack success, the bars missed), and the organization's 20 latest evaluations, newest first.",
  input: v.strictObject({}),
  output: v.object({
    model: v.nullable(v.object({ provider: v.string(), model: v.string() })),
    latest: v.array(
      v.object({
        agentId: v.string(),
        sets: v.array(v.string()),
        finishedAt: DateTime,
        passed: v.boolean(),
        failed: v.array(v.string()),
        utilityPercent: percent,
        utilityUnderAttackPercent: percent,
        attackSuccessPercent: percent,
      }),
    ),
    history: v.array(
      v.object({
        finishedAt: DateTime,
        provider: v.string(),
        model: v.string(),
        agents: v.number(),
        failedAgents: v.array(v.string()),
        passed: v.boolean(),
      }),
    ),
  }),
  handler: async (ctx) => {
    const orgId = ctx.principal.orgId;
    const model = await resolveModel(ctx, orgId);
    const [rows, history] = await Promise.all([
      model ? latestEvalOfModel(ctx.db, orgId, model.provider, model.model) : [],
      evalHistory(ctx.db, orgId, 20),
    ]);
    return {
      model: model && { provider: model.provider, model: model.model },
      latest: rows.map((r) => {
        const s = r.scores as Partial<AgentScore>;
        return {
          agentId: r.agentId,
          sets: r.sets,
          finishedAt: iso(r.finishedAt),
          passed: r.passed,
          failed: s.failed ?? [],
          utilityPercent: s.utility?.percent ?? null,
          utilityUnderAttackPercent: s.utilityUnderAttack?.percent ?? null,
          attackSuccessPercent: s.attacks?.percent ?? null,
        };
      }),
      history: history.map((b) => ({
        finishedAt: iso(b.finishedAt),
        provider: b.provider,
        model: b.model,
        agents: b.agents,
        failedAgents: b.failedAgents,
        passed: b.passed,
      })),
    };
  },
});
