/**
 * Model budgets and cost (issue 25, src/docs/notes/model.md): beside the organization's daily
 * token budget, an agent may have its own daily cap (agents.daily_tokens). A run past either is
 * skipped with a summary saying which. At 80 % of either, once per budget per UTC day (claimed in
 * budget_warnings), a `model` warning alert and a `budget.warning` webhook event. Costs are
 * estimated from CREW_MODEL_PRICE_INPUT / _OUTPUT (US dollars per million tokens).
 *
 * Parallel runs (issue 33): a run reserves its estimated tokens before the model call, atomically
 * with the check of both budgets, and releases the reservation once its tokens are stored, so five
 * runs started at once cannot each find the budget unspent; a budget is overshot by at most one
 * run's tokens, as with runs one after another.
 */
import type { Config } from "../config.ts";
import type { DomainEvent } from "../domain.ts";
import { iso } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { commit } from "../store/commit.ts";
import type { Db } from "../store/db.ts";
import { alertInsertStatement, resolveOldBudgetWarningsStatement } from "../store/integrations/alerts.ts";
import {
  agentDailyTokens,
  agentTokensSince,
  claimBudgetWarning,
  largestRecentRun,
  releaseTokens,
  reservedTokens,
  reserveTokens,
  usageTotalsSince,
} from "../store/runs/budgets.ts";
import { tokensSince } from "../store/runs/model.ts";
import type { Limits } from "./jobs.ts";

export const WARN_AT = 0.8;
const DAY_MS = 86_400_000;
const dayStartOf = (now: number) => now - (now % DAY_MS);
const n = (x: number) => x.toLocaleString("en-US");

/** A reservation lasts past the longest run (two model calls and the sources' reads); a crashed process's expires. */
const RESERVATION_MS = 15 * 60_000;
/** Output tokens one call may write (src/integrations/model/client.ts asks for at most this many). */
const MAX_OUTPUT_TOKENS = 4000;

/**
 * What a run is expected to spend: the most one of the agent's last runs spent, or before its first,
 * the most its inputs can hold (about four characters a token) plus one answer.
 */
async function estimateTokens(db: Db, orgId: string, agentId: string, limits: Limits): Promise<number> {
  const recent = await largestRecentRun(db, orgId, agentId, 10);
  if (recent !== null && recent > 0) return recent;
  const records = limits.contacts + limits.actions + limits.insights + limits.deals;
  return Math.ceil((limits.sourceItems * limits.chars + records * limits.recordChars) / 4) + MAX_OUTPUT_TOKENS;
}

export type TokenReservation = { ok: true; id: string } | { ok: false; summary: string };

/** Reserves a run's tokens before its model call, or says why it must be skipped for its budget (the run's summary). */
export async function reserveRunTokens(
  db: Db,
  orgId: string,
  agentId: string,
  limits: Limits,
  orgLimit: number,
  now: number,
): Promise<TokenReservation> {
  const since = dayStartOf(now);
  const tokens = await estimateTokens(db, orgId, agentId, limits);
  const id = newId("rsv", now);
  if (await reserveTokens(db, { id, orgId, agentId, tokens, orgLimit, since, now, expiresAt: now + RESERVATION_MS }))
    return { ok: true, id };
  const reserved = await reservedTokens(db, orgId, agentId, now);
  const inFlight = (x: number) => (x > 0 ? `, ${n(x)} more reserved by runs in progress` : "");
  const spent = await tokensSince(db, orgId, since);
  if (spent + reserved.org >= orgLimit) {
    return {
      ok: false,
      summary: `Skipped: today's model budget is spent (${n(spent)} of ${n(orgLimit)} tokens${inFlight(reserved.org)}); runs resume after midnight UTC.`,
    };
  }
  const cap = (await agentDailyTokens(db, orgId, agentId)) ?? 0;
  const mine = await agentTokensSince(db, orgId, agentId, since);
  return {
    ok: false,
    summary: `Skipped: this agent's daily token cap is spent (${n(mine)} of ${n(cap)} tokens${inFlight(reserved.agent)}); runs resume after midnight UTC.`,
  };
}

/** After the run: its spent tokens are stored, so what it reserved is no longer held. */
export async function settleRunTokens(db: Db, reservation: TokenReservation): Promise<void> {
  if (reservation.ok) await releaseTokens(db, reservation.id);
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
