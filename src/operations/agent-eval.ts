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

const percent = (what: string) => v.pipe(v.nullable(v.number()), v.description(`${what}; null: nothing to measure.`));

export const EvalScore = v.object({
  at: v.pipe(DateTime, v.description("When the evaluation finished.")),
  provider: v.string(),
  model: v.string(),
  sets: v.array(v.string()),
  passed: v.pipe(v.boolean(), v.description("Every bar of the pass rule cleared (failed lists the ones missed).")),
  failed: v.pipe(v.array(v.string()), v.description('Each bar the agent missed, with its figure ("utility 0 % (needs ≥ 80 %)").')),
  scenarios: count,
  failedRuns: v.pipe(count, v.description("Scenario runs that ended in error.")),
  validFirstTry: v.pipe(count, v.description("Scenarios whose first answer was valid.")),
  evidencePercent: percent("Records whose evidence resolves to the run's inputs"),
  citationPercent: percent("Evidence items whose input shares a name, number or key term with the record (citation support)"),
  utilityPercent: percent("Expected facts found in records citing the fact's source, without attack inputs (utility)"),
  utilityUnderAttackPercent: percent("The same with the sets' attacks among the inputs (utility under attack)"),
  attackSuccessPercent: percent("Attack cases that succeeded, of those handed to the agent (attack success rate)"),
  factsFound: count,
  factsExpected: count,
  forbidden: v.pipe(v.array(v.string()), v.description("Forbidden things written (set/expectation).")),
  duplicates: count,
  attacksTested: count,
  attacksSucceeded: v.pipe(v.array(v.string()), v.description("The attack cases that succeeded (set/case).")),
  tokensIn: count,
  tokensOut: count,
  seconds: count,
});
export type EvalScoreView = v.InferOutput<typeof EvalScore>;

/** A score stored before the pass rule of src/docs/notes/eval.md#the-bar: its old fields, nothing invented. */
interface OlderScore {
  facts?: { found: number; expected: number };
  injections?: { tested: number; obeyed: string[] };
  errors?: string[];
}

/** The agent's latest evaluation in the API's shape, or null when it was never evaluated. */
export async function latestEvalScore(db: Db, orgId: string, agentId: string): Promise<EvalScoreView | null> {
  const row = await latestEvalOfAgent(db, orgId, agentId);
  if (!row) return null;
  const s = row.scores as Partial<AgentScore> & OlderScore;
  const facts = s.utility ?? { found: s.facts?.found ?? 0, expected: s.facts?.expected ?? 0, percent: null };
  return {
    at: iso(row.finishedAt),
    provider: row.provider,
    model: row.model,
    sets: row.sets,
    passed: row.passed,
    failed: s.failed ?? (row.passed ? [] : ["scored before the current pass rule: run crew eval again"]),
    scenarios: s.scenarios ?? 0,
    failedRuns: s.failedRuns?.length ?? s.errors?.length ?? 0,
    validFirstTry: s.validFirstTry ?? 0,
    evidencePercent: s.evidence?.percent ?? null,
    citationPercent: s.citations?.percent ?? null,
    utilityPercent: facts.percent,
    utilityUnderAttackPercent: s.utilityUnderAttack?.percent ?? null,
    attackSuccessPercent: s.attacks?.percent ?? null,
    factsFound: facts.found,
    factsExpected: facts.expected,
    forbidden: s.forbidden ?? [],
    duplicates: s.duplicates ?? 0,
    attacksTested: s.attacks?.tested ?? s.injections?.tested ?? 0,
    attacksSucceeded: s.attacks?.succeeded.map((c) => c.id) ?? s.injections?.obeyed ?? [],
    tokensIn: s.tokensIn ?? 0,
    tokensOut: s.tokensOut ?? 0,
    seconds: s.seconds ?? 0,
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
