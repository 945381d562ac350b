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

/**
 * Reserves `tokens` for a run about to call the model, atomically with the check (src/docs/notes/model.md):
 * the organization's row in budget_locks is locked first, so reservations of one organization are
 * checked one at a time on both engines (a row lock held to commit on PostgreSQL; SQLite has one
 * writer), and each check's statement sees every reservation committed before it. A run may start
 * while the tokens spent today plus those reserved by runs in flight are under the organization's
 * budget and the agent's cap. Returns the reservation's id, or null when refused.
 */
export async function reserveTokens(
  db: Db,
  r: { id: string; orgId: string; agentId: string; tokens: number; orgLimit: number; since: number; now: number; expiresAt: number },
): Promise<string | null> {
  const committed = (agent: boolean) =>
    `(SELECT coalesce(sum(tokens_in + tokens_out), 0) FROM run_usage WHERE org_id = ?${agent ? " AND agent_id = ?" : ""} AND at >= ?)
     + (SELECT coalesce(sum(tokens), 0) FROM token_reservations WHERE org_id = ?${agent ? " AND agent_id = ?" : ""} AND expires_at > ?)`;
  const [, inserted] = await db.batch(
    [
      {
        sql: "INSERT INTO budget_locks (org_id, at) VALUES (?, ?) ON CONFLICT (org_id) DO UPDATE SET at = excluded.at",
        args: [r.orgId, r.now],
      },
      {
        sql: `INSERT INTO token_reservations (id, org_id, agent_id, tokens, at, expires_at)
              SELECT ?, ?, ?, ?, ?, ?
              WHERE ${committed(false)} < ?
                AND ((SELECT daily_tokens FROM agents WHERE org_id = ? AND id = ?) IS NULL
                  OR ${committed(true)} < (SELECT daily_tokens FROM agents WHERE org_id = ? AND id = ?))
              RETURNING id`,
        args: [
          r.id,
          r.orgId,
          r.agentId,
          r.tokens,
          r.now,
          r.expiresAt,
          r.orgId,
          r.since,
          r.orgId,
          r.now,
          r.orgLimit,
          r.orgId,
          r.agentId,
          r.orgId,
          r.agentId,
          r.since,
          r.orgId,
          r.agentId,
          r.now,
          r.orgId,
          r.agentId,
        ],
      },
    ],
    "write",
  );
  return inserted?.rows.length ? r.id : null;
}

/** Tokens reserved now by runs in flight: the organization's and the agent's. */
export async function reservedTokens(db: Db, orgId: string, agentId: string, now: number): Promise<{ org: number; agent: number }> {
  const row = await db.one<{ o: number | null; a: number | null }>(
    `SELECT sum(tokens) AS o, sum(CASE WHEN agent_id = ? THEN tokens ELSE 0 END) AS a
       FROM token_reservations WHERE org_id = ? AND expires_at > ?`,
    [agentId, orgId, now],
  );
  return { org: Number(row?.o ?? 0), agent: Number(row?.a ?? 0) };
}

/** The run ended: its tokens are in run_usage now (or none were spent), so its reservation goes. */
export async function releaseTokens(db: Db, id: string): Promise<void> {
  await db.run("DELETE FROM token_reservations WHERE id = ?", [id]);
}

/** The largest number of tokens one of the agent's recent runs spent, or null without any. */
export async function largestRecentRun(db: Db, orgId: string, agentId: string, runs: number): Promise<number | null> {
  const row = await db.one<{ n: number | null }>(
    `SELECT max(t) AS n FROM (SELECT tokens_in + tokens_out AS t FROM run_usage WHERE org_id = ? AND agent_id = ? ORDER BY at DESC LIMIT ?) recent`,
    [orgId, agentId, runs],
  );
  return row?.n === null || row?.n === undefined ? null : Number(row.n);
}
