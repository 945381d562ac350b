/** Handoffs between agents and the shared insight feed. */
import type { InStatement } from "@libsql/client";
import { type Evidence, type Priority, priorityRank } from "../domain.ts";
import type { Db } from "./db.ts";

export type HandoffStatus = "queued" | "claimed" | "done" | "failed";

/** A handoff as agents and pages read it; the listing adds its status, and a claim hands over just this. */
export interface Handoff {
  id: string;
  from: string;
  to: string;
  title: string;
  context: string | null;
  priority: Priority;
  type: string | null;
  createdAt: number;
}

/** The handoffs columns a read selects (`id, from_agent, to_agent, title, context, priority, type, created_at`). */
export interface HandoffRow {
  id: string;
  from_agent: string;
  to_agent: string;
  title: string;
  context: string | null;
  priority: Priority;
  type: string | null;
  created_at: number;
}

export const handoffOf = (r: HandoffRow): Handoff => ({
  id: r.id,
  from: r.from_agent,
  to: r.to_agent,
  title: r.title,
  context: r.context,
  priority: r.priority,
  type: r.type,
  createdAt: r.created_at,
});

export interface HandoffInsert {
  id: string;
  orgId: string;
  from: string;
  to: string;
  title: string;
  context: string | null;
  priority: Priority;
  type: string | null;
  /** Default `queued`: the destination agent claims it on its next run. */
  status?: HandoffStatus;
  createdBy: string;
  createdAt: number;
  updatedAt?: number;
  /** What it rests on (src/docs/notes/model.md), when a run wrote it. */
  evidence?: Evidence[];
}

export function handoffInsertStatement(h: HandoffInsert): InStatement {
  return {
    sql: `INSERT INTO handoffs (id, org_id, from_agent, to_agent, title, context, priority, priority_rank, type, status, created_by, created_at, updated_at, evidence)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [
      h.id,
      h.orgId,
      h.from,
      h.to,
      h.title,
      h.context,
      h.priority,
      priorityRank(h.priority),
      h.type,
      h.status ?? "queued",
      h.createdBy,
      h.createdAt,
      h.updatedAt ?? h.createdAt,
      h.evidence?.length ? JSON.stringify(h.evidence) : null,
    ],
  };
}

export async function insertHandoff(db: Db, h: HandoffInsert): Promise<void> {
  await db.execute(handoffInsertStatement(h));
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

export type InsightInsert = InsightRecord & { orgId: string; createdBy: string; evidence?: Evidence[] };

export function insightInsertStatement(i: InsightInsert): InStatement {
  return {
    sql: "INSERT INTO insights (id, org_id, agent, title, detail, type, impact, created_by, created_at, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    args: [
      i.id,
      i.orgId,
      i.agent,
      i.title,
      i.detail,
      i.type,
      i.impact,
      i.createdBy,
      i.createdAt,
      i.evidence?.length ? JSON.stringify(i.evidence) : null,
    ],
  };
}

export async function insertInsight(db: Db, i: InsightInsert): Promise<void> {
  await db.execute(insightInsertStatement(i));
}

/** The insights columns a read selects (`id, agent, title, detail, type, impact, created_at`). */
export interface InsightRow {
  id: string;
  agent: string;
  title: string;
  detail: string | null;
  type: string;
  impact: InsightRecord["impact"];
  created_at: number;
}

export const insightOf = ({ created_at, ...r }: InsightRow): InsightRecord => ({ ...r, createdAt: created_at });

/** Insights posted since a time, high impact first, then newest. */
export async function listInsightsSince(db: Db, orgId: string, since: number, limit = 50): Promise<InsightRecord[]> {
  const rows = await db.all<InsightRow>(
    `SELECT id, agent, title, detail, type, impact, created_at FROM insights WHERE org_id = ? AND created_at > ?
      ORDER BY CASE impact WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id DESC LIMIT ?`,
    [orgId, since, limit],
  );
  return rows.map(insightOf);
}
