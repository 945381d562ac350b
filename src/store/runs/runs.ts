/**
 * Agent runs (src/docs/notes/agents-runtime.md): starting one (and claiming the agent's queued handoffs), completing it,
 * the history, the one-hour sweep of abandoned runs; and the scheduler's coordination rows
 * (the leader lease, the claimed schedule slots). Every check-and-set is one atomic statement.
 */
import type { InStatement } from "@libsql/client";
import type { Evidence } from "../../domain.ts";
import { boolean, integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import { type Db, isCheckViolation } from "../db.ts";
import { HANDOFFS, type Handoff } from "../feed/handoffs.ts";
import { skipLocked } from "../row-lock.ts";

/** A handoff a run claimed (its status is `claimed`), with the evidence it rests on. */
export type ClaimedHandoff = Handoff & { evidence: Evidence[] };

/** At most this many handoffs are handed to one run (critical first); the rest wait for the next. */
export const MAX_CLAIMED_HANDOFFS = 100;

/** The start of the agent's latest run (any status), or null when it never ran. */
export async function latestRunStart(db: Db, orgId: string, agentId: string): Promise<number | null> {
  const row = await db.one<{ started_at: number }>(
    "SELECT started_at FROM agent_runs WHERE org_id = ? AND agent_id = ? ORDER BY started_at DESC, id DESC LIMIT 1",
    [orgId, agentId],
  );
  return row?.started_at ?? null;
}

/** What the claim returns (`RETURNING` below): a handoff and its rank. */
const CLAIMED = HANDOFFS.omit("orgId", "status", "createdBy", "updatedAt", "held", "heldReason");

/**
 * Inserts the run (status running) and claims the agent's queued handoffs in one transaction.
 * The claim is a single `UPDATE … WHERE status = 'queued' … RETURNING`: two runs starting at once
 * can never both claim one handoff, and on PostgreSQL the second takes the next ones (store/row-lock.ts).
 */
export async function startRun(db: Db, run: { id: string; orgId: string; agentId: string; startedAt: number }): Promise<ClaimedHandoff[]> {
  const [, claimed] = await db.batch(
    [
      {
        sql: "INSERT INTO agent_runs (id, org_id, agent_id, status, started_at) VALUES (?, ?, ?, 'running', ?)",
        args: [run.id, run.orgId, run.agentId, run.startedAt],
      },
      {
        sql: `UPDATE handoffs SET status = 'claimed', run_id = ?1, updated_at = ?2
               WHERE id IN (SELECT id FROM handoffs WHERE org_id = ?3 AND to_agent = ?4 AND status = 'queued' AND held = 0
                             ORDER BY priority_rank, created_at, id LIMIT ?5${skipLocked(db)})
                 AND status = 'queued'
              RETURNING id, from_agent, to_agent, title, context, priority, priority_rank, type, created_at, evidence, provenance`,
        args: [run.id, run.startedAt, run.orgId, run.agentId, MAX_CLAIMED_HANDOFFS],
      },
    ],
    "write",
  );
  const rows = (claimed?.rows ?? []).map(CLAIMED.read);
  return rows
    .sort((a, b) => a.priorityRank - b.priorityRank || a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    .map(({ priorityRank: _, ...handoff }) => handoff);
}

export interface RunRecord {
  id: string;
  agentId: string;
  status: "running" | "ok" | "error";
  summary: string | null;
  error: string | null;
  output: unknown;
  metrics: { dau: number; wau: number; mrr: number } | null;
  hasData: boolean;
  startedAt: number;
  finishedAt: number | null;
  /** What started it besides the schedule or a person: `mail` (new mail), `event` (POST …/trigger); null otherwise. */
  trigger: string | null;
}

type Metrics = { dau: number; wau: number; mrr: number };

/** The agent_runs table, in the order inserts name its columns. */
const RUNS = table("agent_runs", {
  id: text(),
  orgId: text(),
  agentId: text(),
  status: text<RunRecord["status"]>(),
  summary: nullable(text()),
  error: nullable(text()),
  output: json<unknown>(null),
  metrics: nullable(json<Metrics | null>(null)),
  hasData: boolean(),
  startedAt: integer(),
  finishedAt: nullable(integer()),
  trigger: nullable(text("run_trigger")),
});

const RUN = RUNS.omit("orgId");

const RUN_COLUMNS = RUN.select();

const toRun = (row: SqlRow): RunRecord => RUN.read(row);

export interface RunInsert {
  id: string;
  orgId: string;
  agentId: string;
  status: "running" | "ok" | "error";
  summary?: string | null;
  error?: string | null;
  output?: unknown;
  metrics?: Metrics | null;
  hasData?: boolean;
  startedAt: number;
  finishedAt?: number | null;
  trigger?: string | null;
}

/** A whole run in one row (the demo's, and an evaluation's). */
export function runInsertStatement(r: RunInsert) {
  return {
    sql: `INSERT INTO agent_runs (${RUNS.insertColumns})
          VALUES (${RUNS.placeholders})`,
    args: RUNS.args({
      ...r,
      summary: r.summary ?? null,
      error: r.error ?? null,
      output: r.output,
      metrics: r.metrics ?? null,
      hasData: r.hasData ?? false,
      finishedAt: r.finishedAt ?? null,
      trigger: r.trigger ?? null,
    }),
  };
}

/** Records what started a run (src/docs/notes/connections.md: new mail, an event). */
export function runTriggerStatement(runId: string, trigger: "mail" | "event"): InStatement {
  return { sql: "UPDATE agent_runs SET run_trigger = ? WHERE id = ?", args: [trigger, runId] };
}

export async function getRun(db: Db, orgId: string, agentId: string, runId: string): Promise<RunRecord | null> {
  const row = await db.one<SqlRow>(`SELECT ${RUN_COLUMNS} FROM agent_runs WHERE id = ? AND org_id = ? AND agent_id = ?`, [
    runId,
    orgId,
    agentId,
  ]);
  return row ? toRun(row) : null;
}

/** The agent's runs, newest first. */
export async function listRuns(db: Db, orgId: string, agentId: string, limit: number): Promise<RunRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${RUN_COLUMNS} FROM agent_runs WHERE org_id = ? AND agent_id = ? ORDER BY started_at DESC, id DESC LIMIT ?`,
    [orgId, agentId, limit],
  );
  return rows.map(toRun);
}

/** Ids of the handoffs a run claimed and has not reported yet. */
export async function claimedHandoffIds(db: Db, runId: string): Promise<Set<string>> {
  const rows = await db.all<{ id: string }>("SELECT id FROM handoffs WHERE run_id = ? AND status = 'claimed'", [runId]);
  return new Set(rows.map((r) => r.id));
}

export interface RunCompletion {
  runId: string;
  status: "ok" | "error";
  summary: string;
  error: string | null;
  output?: unknown;
  metrics: { dau: number; wau: number; mrr: number } | null;
  hasData: boolean;
  finishedAt: number;
}

/**
 * Closes a running run. It must be the first statement of the completion's batch: when the run is
 * no longer `running` (completed already, or closed by the one-hour sweep) it writes a status the
 * table's CHECK constraint refuses, so the whole batch rolls back and nothing of the second
 * completion is stored ({@link isAlreadyCompleted} recognizes that failure).
 */
export function completeRunStatement(c: RunCompletion): InStatement {
  return {
    sql: `UPDATE agent_runs
             SET status = CASE status WHEN 'running' THEN ? ELSE 'already-completed' END,
                 summary = ?, error = ?, output = ?, metrics = ?, has_data = ?, finished_at = ?
           WHERE id = ?`,
    args: [
      c.status,
      c.summary,
      c.error,
      c.output === undefined ? null : JSON.stringify(c.output),
      c.metrics ? JSON.stringify(c.metrics) : null,
      c.hasData ? 1 : 0,
      c.finishedAt,
      c.runId,
    ],
  };
}

export const isAlreadyCompleted = isCheckViolation;

/** Marks a handoff this run claimed as done or failed. */
export function handoffResultStatement(runId: string, handoffId: string, status: "done" | "failed", now: number): InStatement {
  return {
    sql: "UPDATE handoffs SET status = ?, updated_at = ? WHERE id = ? AND run_id = ? AND status = 'claimed'",
    args: [status, now, handoffId, runId],
  };
}

/**
 * Handoffs the run claimed but did not report go back to the queue, so the agent's next run gets
 * them again (at-least-once: a handoff is never lost to a run that forgot it or crashed).
 */
export function requeueUnreportedStatement(runId: string, now: number): InStatement {
  return {
    sql: "UPDATE handoffs SET status = 'queued', run_id = NULL, updated_at = ? WHERE run_id = ? AND status = 'claimed'",
    args: [now, runId],
  };
}

/** Closes every run left `running` since before `cutoff` as an error; returns how many. */
export async function closeAbandonedRuns(db: Db, cutoff: number, now: number, message: string): Promise<number> {
  const [, closed] = await db.batch(
    [
      {
        sql: `UPDATE handoffs SET status = 'queued', run_id = NULL, updated_at = ?
               WHERE status = 'claimed' AND run_id IN (SELECT id FROM agent_runs WHERE status = 'running' AND started_at < ?)`,
        args: [now, cutoff],
      },
      {
        sql: `UPDATE agent_runs SET status = 'error', error = ?, summary = coalesce(summary, ?), finished_at = ?
               WHERE status = 'running' AND started_at < ?`,
        args: [message, message, now, cutoff],
      },
    ],
    "write",
  );
  return closed?.rowsAffected ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Scheduler coordination (the leader lease is in store/leases/leases.ts).

/**
 * Claims the schedule slot `slotAt` of an agent: succeeds only when no slot at or after it was
 * claimed before, so each slot runs once across processes and only ever moving forward.
 */
export async function claimSlot(db: Db, orgId: string, agentId: string, slotAt: number, now: number): Promise<boolean> {
  const row = await db.one<{ slot_at: number }>(
    `INSERT INTO schedule_slots (org_id, agent_id, slot_at, claimed_at) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (org_id, agent_id) DO UPDATE SET slot_at = excluded.slot_at, claimed_at = excluded.claimed_at
      WHERE schedule_slots.slot_at < excluded.slot_at
     RETURNING slot_at`,
    [orgId, agentId, slotAt, now],
  );
  return row?.slot_at === slotAt;
}
