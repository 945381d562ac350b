/**
 * The last 7 days in one read (the MCP prompt weekly_review): the standups, the insights the crew
 * posted, and how the deal pipeline moved. No REST or MCP tool of its own; the prompt runs it
 * through `invoke` with read access, as a tool would be run.
 */
import * as v from "valibot";
import { DAY, iso } from "../lib/clock.ts";
import { listInsightsSince } from "../store/feed/insights.ts";
import { latestProfile, listStandupsSince, profileAt } from "../store/reports/reports.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

export const REVIEW_DAYS = 7;

interface PipelineDeal {
  company: string;
  stage: string;
  value: number;
}

/** Stage changes, new and closed-out deals between two pipelines, by company. */
export function pipelineMoves(before: PipelineDeal[], after: PipelineDeal[]): string[] {
  const old = new Map(before.map((d) => [d.company, d]));
  const moves: string[] = [];
  for (const deal of after) {
    const was = old.get(deal.company);
    if (!was) moves.push(`${deal.company}: new at ${deal.stage} ($${deal.value})`);
    else if (was.stage !== deal.stage) moves.push(`${deal.company}: ${was.stage} → ${deal.stage} ($${deal.value})`);
    old.delete(deal.company);
  }
  for (const deal of old.values()) moves.push(`${deal.company}: left the pipeline (was ${deal.stage})`);
  return moves;
}

export const getWeeklyReviewOp = defineOperation({
  id: "getWeeklyReview",
  summary: "The last 7 days",
  description:
    "The standups of the last 7 days (oldest first), the insights posted in them (high impact first) and the pipeline's moves since.",
  input: v.strictObject({}),
  output: v.object({
    standups: v.array(v.object({ id: v.string(), mode: v.string(), generatedAt: DateTime, briefing: v.string(), metrics: v.unknown() })),
    insights: v.array(
      v.object({ agent: v.string(), title: v.string(), detail: v.nullable(v.string()), impact: v.string(), createdAt: DateTime }),
    ),
    pipelineMoves: v.array(v.string()),
  }),
  handler: async (ctx) => {
    const orgId = ctx.principal.orgId;
    const since = ctx.clock.now() - REVIEW_DAYS * DAY;
    const [standups, insights, now, then] = await Promise.all([
      listStandupsSince<{ briefing: string; metrics: unknown }>(ctx.db, orgId, since),
      listInsightsSince(ctx.db, orgId, since, 50),
      latestProfile<{ pipeline?: PipelineDeal[] }>(ctx.db, orgId),
      profileAt<{ pipeline?: PipelineDeal[] }>(ctx.db, orgId, since),
    ]);
    return {
      standups: standups.map((s) => ({
        id: s.id,
        mode: s.mode,
        generatedAt: iso(s.generatedAt),
        briefing: s.body.briefing,
        metrics: s.body.metrics,
      })),
      insights: insights.map((i) => ({ agent: i.agent, title: i.title, detail: i.detail, impact: i.impact, createdAt: iso(i.createdAt) })),
      pipelineMoves: pipelineMoves(then?.body.pipeline ?? [], now?.body.pipeline ?? []),
    };
  },
});
