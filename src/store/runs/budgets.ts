/** Per-agent token caps, their spending, and the once-a-day claim of the 80 % warning (issue 25). */
import type { Db } from "../db.ts";

export async function agentDailyTokens(db: Db, orgId: string, agentId: string): Promise<number | null> {
  const row = await db.one<{ daily_tokens: number | null }>("SELECT daily_tokens FROM agents WHERE org_id = ? AND id = ?", [
    orgId,
    agentId,
  ]);
  return row?.daily_tokens ?? null;
}

export async function setAgentDailyTokens(db: Db, orgId: string, agentId: string, cap: number | null): Promise<void> {
  await db.run("UPDATE agents SET daily_tokens = ? WHERE org_id = ? AND id = ?", [cap, orgId, agentId]);
}

export async function agentTokensSince(db: Db, orgId: string, agentId: string, since: number): Promise<number> {
  const row = await db.one<{ n: number | null }>(
    "SELECT sum(tokens_in + tokens_out) AS n FROM run_usage WHERE org_id = ? AND agent_id = ? AND at >= ?",
    [orgId, agentId, since],
  );
  return Number(row?.n ?? 0);
}

export async function usageTotalsSince(db: Db, orgId: string, since: number): Promise<{ tokensIn: number; tokensOut: number }> {
  const row = await db.one<{ i: number | null; o: number | null }>(
    "SELECT sum(tokens_in) AS i, sum(tokens_out) AS o FROM run_usage WHERE org_id = ? AND at >= ?",
    [orgId, since],
  );
  return { tokensIn: Number(row?.i ?? 0), tokensOut: Number(row?.o ?? 0) };
}

/** True for the one caller that claims this budget's warning of this day (agentId '' is the organization's). */
export async function claimBudgetWarning(db: Db, orgId: string, agentId: string, day: string, now: number): Promise<boolean> {
  const row = await db.one<{ day: string }>(
    "INSERT INTO budget_warnings (org_id, agent_id, day, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING day",
    [orgId, agentId, day, now],
  );
  return row !== null;
}
