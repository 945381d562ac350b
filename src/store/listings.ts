/**
 * Lists the web app reads (src/docs/notes/web-app.md) that no agent needs: contacts with a search, the insight
 * feed newest first, handoffs by status. Each pages by the sort key of its last row.
 */
import type { Evidence } from "../domain.ts";
import type { Db } from "./db.ts";
import { type Handoff, type HandoffRow, type HandoffStatus, handoffOf, type InsightRecord, type InsightRow, insightOf } from "./feed.ts";

export interface ContactRecord {
  id: string;
  name: string;
  email: string | null;
  company: string | null;
  role: string | null;
  relationship: string;
  notes: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Name order: the cursor is the last row's (name key, id). */
export interface ContactCursor {
  nameKey: string;
  id: string;
}

/** `%` and `_` in the search are literal characters, not patterns. */
const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

export async function listContacts(
  db: Db,
  orgId: string,
  q: string | undefined,
  limit: number,
  after: ContactCursor | null,
): Promise<{ contacts: ContactRecord[]; next: ContactCursor | null }> {
  const where = ["org_id = ?"];
  const args: (string | number)[] = [orgId];
  if (q) {
    const pattern = likePattern(q);
    where.push(
      "(name_key LIKE ? ESCAPE '\\' OR coalesce(email, '') LIKE ? ESCAPE '\\' OR lower(coalesce(company, '')) LIKE ? ESCAPE '\\')",
    );
    args.push(pattern, pattern, pattern);
  }
  if (after) {
    // A row value seeks on contacts_by_name; the equivalent OR form walks from the first row.
    where.push("(name_key, id) > (?, ?)");
    args.push(after.nameKey, after.id);
  }
  const rows = await db.all<{
    id: string;
    name: string;
    name_key: string;
    email: string | null;
    company: string | null;
    role: string | null;
    relationship: string;
    notes: string | null;
    created_at: number;
    updated_at: number;
  }>(
    `SELECT id, name, name_key, email, company, role, relationship, notes, created_at, updated_at FROM contacts
      WHERE ${where.join(" AND ")} ORDER BY name_key, id LIMIT ?`,
    [...args, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    contacts: page.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      company: r.company,
      role: r.role,
      relationship: r.relationship,
      notes: r.notes,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    })),
    next: rows.length > limit && last ? { nameKey: last.name_key, id: last.id } : null,
  };
}

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
