import { type Priority, priorityRank } from "../domain.ts";
import type { Db } from "./db.ts";

export interface SuggestionRecord {
  id: string;
  agent: string;
  title: string;
  detail: string;
  priority: Priority;
  createdAt: number;
}

/** Open suggestions, critical first, then newest; optionally of one agent. */
export async function listOpenSuggestions(db: Db, orgId: string, agent?: string, limit = 200): Promise<SuggestionRecord[]> {
  const rows = await db.all<{ id: string; agent_id: string; title: string; detail: string; priority: Priority; created_at: number }>(
    `SELECT id, agent_id, title, detail, priority, created_at FROM suggestions
      WHERE org_id = ?1 AND status = 'open' AND (?2 IS NULL OR agent_id = ?2)
      ORDER BY priority_rank, created_at DESC, id DESC LIMIT ?3`,
    [orgId, agent ?? null, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    agent: r.agent_id,
    title: r.title,
    detail: r.detail,
    priority: r.priority,
    createdAt: r.created_at,
  }));
}

export function suggestionInsertStatement(s: {
  id: string;
  orgId: string;
  agentId: string;
  runId: string | null;
  title: string;
  detail: string;
  priority: Priority;
  createdAt: number;
}) {
  return {
    sql: `INSERT INTO suggestions (id, org_id, agent_id, run_id, title, detail, priority, priority_rank, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [s.id, s.orgId, s.agentId, s.runId, s.title, s.detail, s.priority, priorityRank(s.priority), s.createdAt],
  };
}

/** Closes an agent's open suggestions: a run that reports suggestions replaces the agent's current set. */
export function supersedeSuggestionsStatement(orgId: string, agentId: string) {
  return {
    sql: "UPDATE suggestions SET status = 'superseded' WHERE org_id = ? AND agent_id = ? AND status = 'open'",
    args: [orgId, agentId],
  };
}
