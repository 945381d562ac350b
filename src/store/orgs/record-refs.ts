/** Which of some Crew record ids exist in an organization: the check of evidence that cites Crew records. */
import { isAgentId, type Trust } from "../../domain.ts";
import type { Db } from "../db.ts";

/** The evidence kinds that name a Crew record, and the table holding it. */
export const RECORD_TABLES = {
  contact: "contacts",
  action: "actions",
  insight: "insights",
  handoff: "handoffs",
  suggestion: "suggestions",
} as const;
export type RecordKind = keyof typeof RECORD_TABLES;

export const isRecordKind = (kind: string): kind is RecordKind => Object.hasOwn(RECORD_TABLES, kind);

/** The ids among `ids` of records of `kind` in the organization. */
export async function existingRecordIds(db: Db, orgId: string, kind: RecordKind, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM ${RECORD_TABLES[kind]} WHERE org_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
    [orgId, ...ids],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The trust of cited Crew records (src/docs/notes/prompt-injection.md#provenance), by id, for those
 * that exist: a record's stored provenance; a contact is external when a run created it.
 */
export async function recordTrust(db: Db, orgId: string, kind: RecordKind, ids: readonly string[]): Promise<Map<string, Trust>> {
  if (ids.length === 0) return new Map();
  const column = kind === "contact" ? "created_by" : "provenance";
  const rows = await db.all<{ id: string; value: string }>(
    `SELECT id, ${column} AS value FROM ${RECORD_TABLES[kind]} WHERE org_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
    [orgId, ...ids],
  );
  const trust = (value: string): Trust =>
    kind === "contact" ? (isAgentId(value) ? "external" : "internal") : value === "external" ? "external" : "internal";
  return new Map(rows.map((r) => [r.id, trust(r.value)]));
}
