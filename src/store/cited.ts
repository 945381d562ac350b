/**
 * The evidence a record of the crew cites, whatever its kind (src/docs/notes/web-app.md#evidence-you-can-open):
 * suggestions, actions, insights and handoffs each keep theirs in an `evidence` column, and a page
 * that opens one cited input (a mail) needs only the record's title, its date and that list.
 */
import type { Evidence } from "../domain.ts";
import type { Db } from "./db.ts";

export type CitingKind = "suggestion" | "action" | "insight" | "handoff";

/** A record id's prefix names its table (ids are made so: src/lib/random.ts). */
const TABLE_OF: Record<string, { kind: CitingKind; table: string }> = {
  sug: { kind: "suggestion", table: "suggestions" },
  act: { kind: "action", table: "actions" },
  ins: { kind: "insight", table: "insights" },
  hof: { kind: "handoff", table: "handoffs" },
};

export interface CitingRecord {
  kind: CitingKind;
  id: string;
  title: string;
  createdAt: number;
  evidence: Evidence[];
}

/** One record of the organization with its evidence, or null (no such record, or an id of no citing kind). */
export async function findCitingRecord(db: Db, orgId: string, id: string): Promise<CitingRecord | null> {
  const where = TABLE_OF[id.slice(0, id.indexOf("_"))];
  if (!where) return null;
  const row = await db.one<{ id: string; title: string; created_at: number; evidence: string | null }>(
    `SELECT id, title, created_at, evidence FROM ${where.table} WHERE org_id = ? AND id = ?`,
    [orgId, id],
  );
  if (!row) return null;
  return {
    kind: where.kind,
    id: row.id,
    title: row.title,
    createdAt: Number(row.created_at),
    evidence: row.evidence ? JSON.parse(row.evidence) : [],
  };
}
