/**
 * Lists the web app reads (src/docs/notes/web-app.md) that no agent needs: the insight feed newest
 * first, handoffs by status (contacts are in contacts/contacts.ts). Each pages by the sort key of its last row.
 */
import type { Evidence } from "../domain.ts";
import type { Db } from "./db.ts";
import { type Handoff, type HandoffRow, type HandoffStatus, handoffOf, type InsightRecord, type InsightRow, insightOf } from "./feed.ts";

/** Insights newest first; `before` is the last id of the previous page (ids are ULIDs: id order is time order). */
export async function listRecentInsights(
  db: Db,
  orgId: string,
  limit: number,
  before: string | null,
): Promise<{ insights: (InsightRecord & { evidence: Evidence[] })[]; next: string | null }> {
  const rows = await db.all<InsightRow & { evidence: string | null }>(
    `SELECT id, agent, title, detail, type, impact, created_at, evidence FROM insights WHERE org_id = ?${before ? " AND id < ?" : ""}
      ORDER BY id DESC LIMIT ?`,
    before ? [orgId, before, limit + 1] : [orgId, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    insights: page.map(({ evidence, ...r }) => ({ ...insightOf(r), evidence: evidenceOf(evidence) })),
    next: rows.length > limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

export interface HandoffRecord extends Handoff {
  status: HandoffStatus;
  createdAt: number;
  updatedAt: number;
  /** What it rests on, when a run wrote it. */
  evidence: Evidence[];
}

/** The stored evidence column (JSON, or null for none). */
const evidenceOf = (column: string | null): Evidence[] => (column ? (JSON.parse(column) as Evidence[]) : []);

/** Handoffs of one status (claimed counts as queued: the run has not reported yet), priority then newest. */
export async function listHandoffs(
  db: Db,
  orgId: string,
  filter: { status?: "queued" | "done" | "failed"; to?: string },
  limit: number,
): Promise<HandoffRecord[]> {
  const where = ["org_id = ?"];
  const args: (string | number)[] = [orgId];
  if (filter.status === "queued") where.push("status IN ('queued', 'claimed')");
  else if (filter.status) {
    where.push("status = ?");
    args.push(filter.status);
  }
  if (filter.to) {
    where.push("to_agent = ?");
    args.push(filter.to);
  }
  const rows = await db.all<HandoffRow & { status: HandoffStatus; updated_at: number; evidence: string | null }>(
    `SELECT id, from_agent, to_agent, title, context, priority, type, status, created_at, updated_at, evidence FROM handoffs
      WHERE ${where.join(" AND ")} ORDER BY priority_rank, id DESC LIMIT ?`,
    [...args, limit],
  );
  return rows.map((r) => ({
    ...handoffOf(r),
    status: r.status,
    updatedAt: r.updated_at,
    evidence: evidenceOf(r.evidence),
  }));
}
