/** Handoffs between agents and the shared insight feed. */
import { type Priority, priorityRank } from "../operations/schemas.ts";
import { all, type Db, run } from "./db.ts";

export interface HandoffInsert {
  id: string;
  orgId: string;
  from: string;
  to: string;
  title: string;
  context: string | null;
  priority: Priority;
  type: string | null;
  createdBy: string;
  createdAt: number;
}

export async function insertHandoff(db: Db, h: HandoffInsert): Promise<void> {
  await run(
    db,
    `INSERT INTO handoffs (id, org_id, from_agent, to_agent, title, context, priority, priority_rank, type, status, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
    [h.id, h.orgId, h.from, h.to, h.title, h.context, h.priority, priorityRank(h.priority), h.type, h.createdBy, h.createdAt, h.createdAt],
  );
}

export interface InsightRecord {
  id: string;
  agent: string;
  title: string;
  detail: string | null;
  type: string;
  impact: "low" | "medium" | "high";
  createdAt: number;
}

export async function insertInsight(db: Db, i: InsightRecord & { orgId: string; createdBy: string }): Promise<void> {
  await run(
    db,
    "INSERT INTO insights (id, org_id, agent, title, detail, type, impact, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [i.id, i.orgId, i.agent, i.title, i.detail, i.type, i.impact, i.createdBy, i.createdAt],
  );
}

/** Insights posted since a time, high impact first, then newest. */
export async function listInsightsSince(db: Db, orgId: string, since: number, limit = 50): Promise<InsightRecord[]> {
  const rows = await all<{
    id: string;
    agent: string;
    title: string;
    detail: string | null;
    type: string;
    impact: InsightRecord["impact"];
    created_at: number;
  }>(
    db,
    `SELECT id, agent, title, detail, type, impact, created_at FROM insights WHERE org_id = ? AND created_at > ?
      ORDER BY CASE impact WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id DESC LIMIT ?`,
    [orgId, since, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    agent: r.agent,
    title: r.title,
    detail: r.detail,
    type: r.type,
    impact: r.impact,
    createdAt: r.created_at,
  }));
}
