/**
 * Failing agents pause themselves (issue 25, src/docs/notes/agents-runtime.md): after
 * PAUSE_AFTER consecutive scheduled runs of one agent end in `error`, the agent is paused — the
 * scheduler skips it — and a critical `agents` alert says why. An owner resumes it on
 * /agents/{id}, with `crew agents resume ID` (both the resumeAgent operation), or by a successful
 * "Run now". Runs made for other reasons (Run now, the run API, regenerations) do not count.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { alertInsertStatement, alertSourceInsertStatement, resolveAgentAlertsStatement } from "../store/integrations/alerts.ts";
import { countScheduledOutcome, getPauseState, resumeStatement } from "../store/runs/agent-pause.ts";

export const PAUSE_AFTER = 3;
export const PAUSE_ALERT_SERVICE = "agents";

interface PauseDeps {
  db: Db;
  clock: Clock;
  log: Logger;
}

/** Counts one finished scheduled run; pauses the agent (with its alert) at the third error in a row. */
export async function countScheduledRun(
  deps: PauseDeps,
  orgId: string,
  run: { agentId: string; runId: string | null; status: string; summary: string },
): Promise<boolean> {
  if (run.status !== "ok" && run.status !== "error") return false; // a skipped run neither fails nor succeeds
  const now = deps.clock.now();
  const reason = `Paused after ${PAUSE_AFTER} scheduled runs in a row failed; the last: ${run.summary.split("\n")[0]} An owner resumes it on its page (Resume, or a successful Run now) or with crew agents resume ${run.agentId}.`;
  const state = await countScheduledOutcome(deps.db, {
    orgId,
    agentId: run.agentId,
    failed: run.status === "error",
    threshold: PAUSE_AFTER,
    reason,
    now,
  });
  const pausedNow = state !== null && state.pausedAt === now && state.failedRuns === PAUSE_AFTER;
  if (!pausedNow) return false;
  const alertId = newId("alr", now);
  await deps.db.batch(
    [
      alertInsertStatement({
        id: alertId,
        orgId,
        service: PAUSE_ALERT_SERVICE,
        severity: "critical",
        message: `${run.agentId}: ${reason}`,
        flaggedAt: now,
      }),
      ...(run.runId ? [alertSourceInsertStatement({ alertId, orgId, agentId: run.agentId, runId: run.runId })] : []),
    ],
    "write",
  );
  deps.log.warn("agent paused", { agent: run.agentId, failed_runs: state.failedRuns });
  return true;
}

/** Resumes a paused agent and resolves its pause alert; false when it was not paused. */
export async function resumeAgent(deps: Pick<PauseDeps, "db" | "clock">, orgId: string, agentId: string): Promise<boolean> {
  const state = await getPauseState(deps.db, orgId, agentId);
  if (!state || (state.pausedAt === null && state.failedRuns === 0)) return false;
  await deps.db.batch(
    [resumeStatement(orgId, agentId), resolveAgentAlertsStatement(orgId, agentId, [PAUSE_ALERT_SERVICE], deps.clock.now())],
    "write",
  );
  return state.pausedAt !== null;
}
