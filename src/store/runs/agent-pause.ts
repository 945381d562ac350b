/**
 * Agents that pause themselves (issue 25): the streak of scheduled runs ending in error, counted
 * in one atomic UPDATE so two processes cannot both miss the third failure, and the pause it sets.
 */
import { integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface PauseState {
  failedRuns: number;
  pausedAt: number | null;
  pausedReason: string | null;
}

const PAUSE = table("agents", { failedRuns: integer(), pausedAt: nullable(integer()), pausedReason: nullable(text()) });

/**
 * Counts a finished scheduled run: an error extends the streak, anything else ends it. When the
 * streak reaches `threshold`, the agent is paused with `reason` (SQLite's SET reads the old row).
 */
export async function countScheduledOutcome(
  db: Db,
  c: { orgId: string; agentId: string; failed: boolean; threshold: number; reason: string; now: number },
): Promise<PauseState | null> {
  const pauses = c.failed ? 1 : 0;
  const row = await db.one<SqlRow>(
    `UPDATE agents SET
        failed_runs = CASE WHEN ?1 = 1 THEN failed_runs + 1 ELSE 0 END,
        paused_at = CASE WHEN ?1 = 1 AND failed_runs + 1 >= ?2 AND paused_at IS NULL THEN ?3 ELSE paused_at END,
        paused_reason = CASE WHEN ?1 = 1 AND failed_runs + 1 >= ?2 AND paused_at IS NULL THEN ?4 ELSE paused_reason END
      WHERE org_id = ?5 AND id = ?6
      RETURNING failed_runs, paused_at, paused_reason`,
    [pauses, c.threshold, c.now, c.reason, c.orgId, c.agentId],
  );
  return row ? PAUSE.read(row) : null;
}

export async function getPauseState(db: Db, orgId: string, agentId: string): Promise<PauseState | null> {
  const row = await db.one<SqlRow>("SELECT failed_runs, paused_at, paused_reason FROM agents WHERE org_id = ? AND id = ?", [
    orgId,
    agentId,
  ]);
  return row ? PAUSE.read(row) : null;
}

/** Clears a pause and the streak; the statement for the batch that also resolves the alert. */
export function resumeStatement(orgId: string, agentId: string) {
  return {
    sql: "UPDATE agents SET failed_runs = 0, paused_at = NULL, paused_reason = NULL WHERE org_id = ? AND id = ? AND (paused_at IS NOT NULL OR failed_runs > 0)",
    args: [orgId, agentId],
  };
}
