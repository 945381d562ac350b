import { boolean, integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

/** One agent with what the dashboard derives its health from. */
export interface AgentRunSummary {
  id: string;
  name: string;
  category: string;
  schedule: string | null;
  /** Latest finished run (any status). */
  lastStatus: "ok" | "error" | null;
  lastFinishedAt: number | null;
  lastSummary: string | null;
  lastError: string | null;
  /** Latest successful run. */
  okFinishedAt: number | null;
  okSummary: string | null;
  okHasData: boolean;
  /** Set while the agent is paused after failed scheduled runs (src/agents/auto-pause.ts). */
  pausedReason: string | null;
}

/** The listing's row: the agent, its latest finished run (`last_…`) and latest successful one (`ok_…`). */
const LISTED = table("agents", {
  id: text(),
  name: text(),
  category: text(),
  schedule: nullable(text()),
  lastStatus: nullable(text<"ok" | "error">()),
  lastFinishedAt: nullable(integer("last_at")),
  lastSummary: nullable(text()),
  lastError: nullable(text()),
  okFinishedAt: nullable(integer("ok_at")),
  okSummary: nullable(text()),
  okHasData: boolean(),
  pausedReason: nullable(text()),
});

/**
 * The `agents_version` counter: on SQLite one row; on PostgreSQL that row plus the slots the
 * trigger bumps (store/engine/postgres-schema.ts), summed. It moves whenever a write to agents or
 * agent_runs commits, and only then.
 */
export async function agentsVersion(db: Db): Promise<string | undefined> {
  const row = await db.one<{ value: string | null }>(
    "SELECT CAST(sum(CAST(value AS BIGINT)) AS TEXT) AS value FROM schema_meta WHERE key = 'agents_version' OR key LIKE 'agents_version:%'",
  );
  return row?.value ?? undefined;
}

/**
 * The last list read per store and organization, with the `agents_version` it was read at. Every
 * write to agents or agent_runs, by any process, bumps that version in its own transaction (a
 * trigger, schema.sql), so a list is served again only while nothing it depends on has changed.
 * Reading the version is one small read (a primary-key lookup on SQLite) instead of 34 index seeks.
 */
const listCache = new WeakMap<Db, Map<string, { version: string; agents: AgentRunSummary[] }>>();

/** The 17 agents of an organization in catalog order, each with its latest run and latest successful run. */
export async function listAgentsWithRuns(db: Db, orgId: string): Promise<AgentRunSummary[]> {
  const version = await agentsVersion(db);
  let byOrg = listCache.get(db);
  const cached = byOrg?.get(orgId);
  if (version !== undefined && cached?.version === version) return [...cached.agents];
  const agents = await readAgentsWithRuns(db, orgId);
  if (version !== undefined) {
    if (!byOrg) {
      byOrg = new Map();
      listCache.set(db, byOrg);
    }
    byOrg.set(orgId, { version, agents });
  }
  return [...agents];
}

async function readAgentsWithRuns(db: Db, orgId: string): Promise<AgentRunSummary[]> {
  const rows = await db.all<SqlRow>(
    `SELECT a.id, a.name, a.category, a.schedule, CASE WHEN a.paused_at IS NULL THEN NULL ELSE a.paused_reason END AS paused_reason,
            lr.status AS last_status, lr.finished_at AS last_at, lr.summary AS last_summary, lr.error AS last_error,
            ok.finished_at AS ok_at, ok.summary AS ok_summary, ok.has_data AS ok_has_data
       FROM agents a
       LEFT JOIN agent_runs lr ON lr.id = (
         SELECT r.id FROM agent_runs r
          WHERE r.org_id = a.org_id AND r.agent_id = a.id AND r.finished_at IS NOT NULL
          ORDER BY r.finished_at DESC, r.id DESC LIMIT 1)
       LEFT JOIN agent_runs ok ON ok.id = (
         SELECT r.id FROM agent_runs r
          WHERE r.org_id = a.org_id AND r.agent_id = a.id AND r.finished_at IS NOT NULL AND r.status = 'ok'
          ORDER BY r.finished_at DESC, r.id DESC LIMIT 1)
      WHERE a.org_id = ?
      ORDER BY a.position`,
    [orgId],
  );
  return rows.map(LISTED.read);
}

/** Metrics of the latest successful pulse run that reported them. */
export async function latestMetrics(db: Db, orgId: string): Promise<{ dau: number; wau: number; mrr: number } | null> {
  const rows = await db.all<{ metrics: string }>(
    `SELECT metrics FROM agent_runs WHERE org_id = ? AND agent_id = 'pulse' AND status = 'ok' AND metrics IS NOT NULL
      ORDER BY finished_at DESC, id DESC LIMIT 1`,
    [orgId],
  );
  return rows[0] ? JSON.parse(rows[0].metrics) : null;
}

/** Metrics of the latest successful pulse runs that reported them, newest first (pulse's trend, src/docs/notes/model.md). */
export async function recentMetrics(
  db: Db,
  orgId: string,
  limit: number,
): Promise<{ at: number; dau: number; wau: number; mrr: number }[]> {
  const rows = await db.all<{ metrics: string; finished_at: number }>(
    `SELECT metrics, finished_at FROM agent_runs WHERE org_id = ? AND agent_id = 'pulse' AND status = 'ok' AND metrics IS NOT NULL
      ORDER BY finished_at DESC, id DESC LIMIT ?`,
    [orgId, limit],
  );
  return rows.map((r) => ({ at: r.finished_at, ...JSON.parse(r.metrics) }));
}

/** An agent's schedule with its organization's time zone, for the scheduler. */
export interface ScheduledAgent {
  orgId: string;
  agentId: string;
  schedule: string;
  timeZone: string;
}

const SCHEDULED = table("agents", { orgId: text(), agentId: text("id"), schedule: text(), timeZone: text() });

/** Every agent of every organization that has a schedule and is not paused. */
export async function listScheduledAgents(db: Db): Promise<ScheduledAgent[]> {
  const rows = await db.all<SqlRow>(`SELECT a.org_id, a.id, a.schedule, o.time_zone FROM agents a JOIN organizations o ON o.id = a.org_id
      WHERE a.schedule IS NOT NULL AND a.paused_at IS NULL ORDER BY a.org_id, a.position`);
  return rows.map(SCHEDULED.read);
}

export interface AgentRecord {
  id: string;
  name: string;
  category: string;
  schedule: string | null;
}

/** Sets (or clears, with null) an agent's schedule; null when the organization has no such agent. */
export async function setAgentSchedule(db: Db, orgId: string, agentId: string, schedule: string | null): Promise<AgentRecord | null> {
  const rows = await db.all<AgentRecord>(
    "UPDATE agents SET schedule = ? WHERE org_id = ? AND id = ? RETURNING id, name, category, schedule",
    [schedule, orgId, agentId],
  );
  return rows[0] ?? null;
}

/** The agent, with why it is paused (null while it is not, src/agents/auto-pause.ts). */
export async function getAgentRecord(
  db: Db,
  orgId: string,
  agentId: string,
): Promise<(AgentRecord & { pausedReason: string | null }) | null> {
  const row = await db.one<AgentRecord & { paused_reason: string | null }>(
    "SELECT id, name, category, schedule, CASE WHEN paused_at IS NULL THEN NULL ELSE paused_reason END AS paused_reason FROM agents WHERE org_id = ? AND id = ?",
    [orgId, agentId],
  );
  if (!row) return null;
  const { paused_reason, ...agent } = row;
  return { ...agent, pausedReason: paused_reason };
}
