import type { InStatement } from "@libsql/client";
import { type Evidence, type Priority, type Provenance, priorityRank, type SuggestionStatus } from "../../domain.ts";
import { boolean, integer, json, jsonList, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Condition, Db } from "../db.ts";

export interface SuggestionRecord {
  id: string;
  agent: string;
  runId: string | null;
  title: string;
  detail: string;
  priority: Priority;
  status: SuggestionStatus;
  evidence: Evidence[];
  alsoRaisedBy: string[];
  actionId: string | null;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
  /** Whether it rests on outside input (src/docs/notes/prompt-injection.md#provenance). */
  provenance: Provenance;
  /** Held for an owner's review (src/docs/notes/prompt-injection.md#held), with why. */
  held: boolean;
  heldReason: string | null;
}

const SUGGESTIONS = table("suggestions", {
  id: text(),
  orgId: text(),
  agent: text("agent_id"),
  runId: nullable(text()),
  title: text(),
  detail: text(),
  priority: text<Priority>(),
  priorityRank: integer(),
  status: text<SuggestionStatus>(),
  evidence: jsonList<Evidence>(),
  alsoRaisedBy: json<string[]>([]),
  actionId: nullable(text()),
  reason: nullable(text()),
  createdAt: integer(),
  updatedAt: nullable(integer()),
  provenance: text<Provenance>(),
  held: boolean(),
  heldReason: nullable(text()),
});

const READ = SUGGESTIONS.pick(
  "id",
  "agent",
  "runId",
  "title",
  "detail",
  "priority",
  "status",
  "evidence",
  "alsoRaisedBy",
  "actionId",
  "reason",
  "createdAt",
  "updatedAt",
  "provenance",
  "held",
  "heldReason",
);

const COLUMNS = READ.select();

const INSERTED = SUGGESTIONS.pick(
  "id",
  "orgId",
  "agent",
  "runId",
  "title",
  "detail",
  "priority",
  "priorityRank",
  "createdAt",
  "updatedAt",
  "evidence",
  "provenance",
  "held",
  "heldReason",
);

/** A suggestion never updated counts as updated when it was made. */
const toSuggestion = (row: SqlRow): SuggestionRecord => {
  const r = READ.read(row);
  return { ...r, updatedAt: r.updatedAt ?? r.createdAt };
};

/**
 * Suggestions of one status (open by default), critical first, then newest; optionally of one
 * agent. Held ones only when asked for (`held: true`), or with the others (`held: "any"`).
 */
export async function listSuggestions(
  db: Db,
  orgId: string,
  filter: { agent?: string; status?: SuggestionStatus; limit?: number; held?: boolean | "any" } = {},
): Promise<SuggestionRecord[]> {
  const held = filter.held === "any" ? null : filter.held ? 1 : 0;
  const rows = await db.all<SqlRow>(
    `SELECT ${COLUMNS} FROM suggestions
      WHERE org_id = ?1 AND status = ?2 AND (?3 IS NULL OR agent_id = ?3) AND (?5 IS NULL OR held = ?5)
      ORDER BY priority_rank, created_at DESC, id DESC LIMIT ?4`,
    [orgId, filter.status ?? "open", filter.agent ?? null, filter.limit ?? 200, held],
  );
  return rows.map(toSuggestion);
}

/** Open suggestions, critical first, then newest; optionally of one agent. */
export const listOpenSuggestions = (db: Db, orgId: string, agent?: string, limit = 200) => listSuggestions(db, orgId, { agent, limit });

/** The newest open suggestions (what a run is handed to avoid saying a thing twice). */
export async function newestOpenSuggestions(db: Db, orgId: string, limit: number): Promise<SuggestionRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${COLUMNS} FROM suggestions WHERE org_id = ? AND status = 'open' AND held = 0 ORDER BY created_at DESC, id DESC LIMIT ?`,
    [orgId, limit],
  );
  return rows.map(toSuggestion);
}

/** Suggestions dismissed since `since`, newest first: their topics are not suggested again. */
export async function dismissedSince(db: Db, orgId: string, since: number, limit = 200): Promise<SuggestionRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${COLUMNS} FROM suggestions WHERE org_id = ? AND status = 'dismissed' AND updated_at >= ?
      ORDER BY updated_at DESC LIMIT ?`,
    [orgId, since, limit],
  );
  return rows.map(toSuggestion);
}

export async function findSuggestion(db: Db, orgId: string, id: string): Promise<SuggestionRecord | null> {
  const row = await db.one<SqlRow>(`SELECT ${COLUMNS} FROM suggestions WHERE org_id = ? AND id = ?`, [orgId, id]);
  return row ? toSuggestion(row) : null;
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
  evidence?: Evidence[];
  provenance?: Provenance;
  heldReason?: string | null;
}) {
  return {
    sql: `INSERT INTO suggestions (${INSERTED.insertColumns})
          VALUES (${INSERTED.placeholders})`,
    args: INSERTED.args({
      ...s,
      agent: s.agentId,
      priorityRank: priorityRank(s.priority),
      updatedAt: s.createdAt,
      evidence: s.evidence ?? [],
      provenance: s.provenance ?? "internal",
      held: Boolean(s.heldReason),
      heldReason: s.heldReason ?? null,
    }),
  };
}

/** An open suggestion absorbs a new one saying the same thing: more evidence, more agents. */
export function suggestionMergeStatement(orgId: string, m: { id: string; evidence: Evidence[]; alsoRaisedBy: string[] }, now: number) {
  return {
    sql: "UPDATE suggestions SET evidence = ?, also_raised_by = ?, updated_at = ? WHERE org_id = ? AND id = ?",
    args: [m.evidence.length ? JSON.stringify(m.evidence) : null, JSON.stringify(m.alsoRaisedBy), now, orgId, m.id],
  };
}

/**
 * Closes an agent's open suggestions: a run that reports suggestions replaces the agent's current
 * set, except those it restated (`keep`, merged into rather than written again).
 */
export function supersedeSuggestionsStatement(orgId: string, agentId: string, keep: string[] = [], now: number | null = null) {
  return {
    sql: `UPDATE suggestions SET status = 'superseded', updated_at = coalesce(?, updated_at)
           WHERE org_id = ? AND agent_id = ? AND status = 'open' AND held = 0 AND id NOT IN (SELECT value FROM json_each(?))`,
    args: [now, orgId, agentId, JSON.stringify(keep)],
  };
}

/**
 * "Make it an action" once (src/docs/notes/model.md): claims a suggestion that has no action yet for
 * `actionId`, in the transaction that inserts that action. Of two accepts at once, only the first
 * changes the row; `claimed` holds afterwards only for it, so the other inserts nothing.
 */
export function acceptClaim(orgId: string, id: string, actionId: string, now: number): { claim: InStatement; claimed: Condition } {
  return {
    claim: {
      sql: `UPDATE suggestions SET status = 'accepted', reason = NULL, action_id = ?, updated_at = ?
             WHERE org_id = ? AND id = ? AND action_id IS NULL`,
      args: [actionId, now, orgId, id],
    },
    claimed: { sql: "EXISTS (SELECT 1 FROM suggestions WHERE org_id = ? AND id = ? AND action_id = ?)", args: [orgId, id, actionId] },
  };
}

/** The lifecycle step of src/docs/notes/model.md: open → accepted (its action) | dismissed (a reason) | back to open. */
export async function setSuggestionStatus(
  db: Db,
  orgId: string,
  id: string,
  change: { status: "open" | "accepted" | "dismissed"; reason?: string | null; actionId?: string | null },
  now: number,
): Promise<boolean> {
  const result = await db.execute({
    sql: `UPDATE suggestions SET status = ?, reason = ?, action_id = coalesce(?, action_id), updated_at = ? WHERE org_id = ? AND id = ?`,
    args: [change.status, change.status === "dismissed" ? (change.reason ?? null) : null, change.actionId ?? null, now, orgId, id],
  });
  return result.rowsAffected > 0;
}

/** An owner's release of a held suggestion (src/docs/notes/prompt-injection.md#held): listed from now on. */
export async function releaseSuggestion(db: Db, orgId: string, id: string, now: number): Promise<boolean> {
  const result = await db.execute({
    sql: "UPDATE suggestions SET held = 0, updated_at = ? WHERE org_id = ? AND id = ? AND held = 1",
    args: [now, orgId, id],
  });
  return result.rowsAffected > 0;
}
