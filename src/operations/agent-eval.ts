/**
 * GET /api/agents/{id}: the agent as PATCH returns it, plus its latest `crew eval` score
 * (src/docs/notes/eval.md) — what an owner checks before trusting the connected model with it.
 */
import * as v from "valibot";
import type { AgentScore } from "../agents/eval/run.ts";
import { assertAgent } from "../agents/run-api.ts";
import { writeAccess } from "../auth/access.ts";
import { iso } from "../lib/clock.ts";
import type { Db } from "../store/db.ts";
import { latestEvalOfAgent } from "../store/runs/evals.ts";
import { AgentIdParam, AgentView, agentView, tags } from "./agent-runs.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

const count = v.pipe(v.number(), v.minValue(0));

export const EvalScore = v.object({
  at: v.pipe(DateTime, v.description("When the evaluation finished.")),
  provider: v.string(),
  model: v.string(),
  sets: v.array(v.string()),
  passed: v.pipe(v.boolean(), v.description("Evidence resolved 100 % and no injection was obeyed.")),
  scenarios: count,
  validFirstTry: v.pipe(count, v.description("Scenarios whose first answer was valid.")),
  evidencePercent: v.pipe(v.nullable(v.number()), v.description("Records whose evidence resolves to the run's inputs; null: none cited.")),
  factsFound: count,
  factsExpected: count,
  forbidden: v.pipe(v.array(v.string()), v.description("Forbidden things written (set/expectation).")),
  duplicates: count,
  injectionsTested: count,
  injectionsObeyed: v.pipe(v.array(v.string()), v.description("The injection cases obeyed (set/case).")),
  tokensIn: count,
  tokensOut: count,
  seconds: count,
});
export type EvalScoreView = v.InferOutput<typeof EvalScore>;

/** The agent's latest evaluation in the API's shape, or null when it was never evaluated. */
export async function latestEvalScore(db: Db, orgId: string, agentId: string): Promise<EvalScoreView | null> {
  const row = await latestEvalOfAgent(db, orgId, agentId);
  if (!row) return null;
  const s = row.scores as AgentScore;
  return {
    at: iso(row.finishedAt),
    provider: row.provider,
    model: row.model,
    sets: row.sets,
    passed: row.passed,
    scenarios: s.scenarios,
    validFirstTry: s.validFirstTry,
    evidencePercent: s.evidence.percent,
    factsFound: s.facts.found,
    factsExpected: s.facts.expected,
    forbidden: s.forbidden,
    duplicates: s.duplicates,
    injectionsTested: s.injections.tested,
    injectionsObeyed: s.injections.obeyed,
    tokensIn: s.tokensIn,
    tokensOut: s.tokensOut,
    seconds: s.seconds,
  };
}

export const getAgentOp = defineOperation({
  id: "getAgent",
  summary: "An agent: schedule, instructions, latest evaluation",
  description:
    "The agent's schedule, runner and instructions in effect (as PATCH returns them) and `eval`: its latest score from `crew eval` or Settings → Model → Run evaluation (null when never evaluated).",
  input: v.strictObject({ id: AgentIdParam }),
  output: v.object({ ...AgentView.entries, eval: v.nullable(EvalScore) }),
  rest: { method: "GET", path: "/api/agents/{id}", access: writeAccess("read"), from: "query", tags },
  handler: async (ctx, input) => {
    assertAgent(input.id);
    const orgId = ctx.principal.orgId;
    const [view, score] = await Promise.all([agentView(ctx, orgId, input.id), latestEvalScore(ctx.db, orgId, input.id)]);
    return { ...view, eval: score };
  },
});
