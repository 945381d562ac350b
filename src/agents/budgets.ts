/**
 * Model budgets and cost (issue 25, src/docs/notes/model.md): beside the organization's daily
 * token budget, an agent may have its own daily cap (agents.daily_tokens). A run past either is
 * skipped with a summary saying which. At 80 % of either, once per budget per UTC day (claimed in
 * budget_warnings), a `model` warning alert and a `budget.warning` webhook event. Costs are
 * estimated from CREW_MODEL_PRICE_INPUT / _OUTPUT (US dollars per million tokens).
 */
import type { Config } from "../config.ts";
import type { DomainEvent } from "../domain.ts";
import { iso } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { commit } from "../store/commit.ts";
import type { Db } from "../store/db.ts";
import { alertInsertStatement, resolveOldBudgetWarningsStatement } from "../store/integrations/alerts.ts";
import { agentDailyTokens, agentTokensSince, claimBudgetWarning, usageTotalsSince } from "../store/runs/budgets.ts";
import { tokensSince } from "../store/runs/model.ts";

export const WARN_AT = 0.8;
const DAY_MS = 86_400_000;
const dayStartOf = (now: number) => now - (now % DAY_MS);
const n = (x: number) => x.toLocaleString("en-US");

/** Why a run must be skipped for its budget (the run's summary), or null when it may run. */
export async function budgetSkipReason(db: Db, orgId: string, agentId: string, orgLimit: number, now: number): Promise<string | null> {
  const since = dayStartOf(now);
  const spent = await tokensSince(db, orgId, since);
  if (spent >= orgLimit) {
    return `Skipped: today's model budget is spent (${n(spent)} of ${n(orgLimit)} tokens); runs resume after midnight UTC.`;
  }
  const cap = await agentDailyTokens(db, orgId, agentId);
  if (cap === null) return null;
  const mine = await agentTokensSince(db, orgId, agentId, since);
  return mine >= cap
    ? `Skipped: this agent's daily token cap is spent (${n(mine)} of ${n(cap)} tokens); runs resume after midnight UTC.`
    : null;
}

/** After a run spent tokens: the 80 % warning of each budget it crossed, once per budget per day. */
export async function warnOnBudgets(
  deps: { db: Db; clock: { now(): number }; events: { emit(event: DomainEvent): void } },
  orgId: string,
  agentId: string,
  orgLimit: number,
): Promise<void> {
  const now = deps.clock.now();
  const since = dayStartOf(now);
  const day = iso(since).slice(0, 10);
  const cap = await agentDailyTokens(deps.db, orgId, agentId);
  const budgets = [
    { agent: null, used: await tokensSince(deps.db, orgId, since), limit: orgLimit },
    ...(cap === null ? [] : [{ agent: agentId, used: await agentTokensSince(deps.db, orgId, agentId, since), limit: cap }]),
  ];
  for (const b of budgets) {
    if (b.used < b.limit * WARN_AT) continue;
    if (!(await claimBudgetWarning(deps.db, orgId, b.agent ?? "", day, now))) continue;
    const whose = b.agent ? `${b.agent}'s daily token cap` : "today's model budget";
    const message = `${Math.floor((b.used / b.limit) * 100)} % of ${whose} is used (${n(b.used)} of ${n(b.limit)} tokens); runs past it are skipped until midnight UTC.`;
    await commit(
      deps.db,
      [
        resolveOldBudgetWarningsStatement(orgId, since, now),
        alertInsertStatement({ id: newId("alr", now), orgId, service: "model", severity: "warning", message, flaggedAt: now }),
      ],
      [{ type: "budget.warning", orgId, agent: b.agent, used: b.used, limit: b.limit, at: now }],
      deps.events.emit,
    );
  }
}

export interface Prices {
  input: number;
  output: number;
}

/** Estimated cost in US dollars (cents rounded to 6 decimals), or null without prices. */
export function costUsd(prices: Config["modelPrices"], usage: { tokensIn: number; tokensOut: number }): number | null {
  if (!prices) return null;
  return Math.round(((usage.tokensIn * prices.input + usage.tokensOut * prices.output) / 1_000_000) * 1e6) / 1e6;
}

/** Tokens and estimated cost of the organization today and this month (UTC). */
export async function spendingTotals(db: Db, config: Config, orgId: string, now: number) {
  const date = new Date(now);
  const monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const [today, month] = await Promise.all([usageTotalsSince(db, orgId, dayStartOf(now)), usageTotalsSince(db, orgId, monthStart)]);
  return {
    today: { ...today, costUsd: costUsd(config.modelPrices, today) },
    month: { ...month, costUsd: costUsd(config.modelPrices, month) },
  };
}
