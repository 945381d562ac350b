import type { InStatement } from "@libsql/client";
import type { ActionLane, ActionStatus, ActionType, Evidence, Provenance } from "../../domain.ts";
import { type DomainEvent, defaultLane, type Priority, priorityRank } from "../../domain.ts";
import { newId } from "../../lib/random.ts";
import { integer, jsonList, nullable, type SqlRow, table, text } from "../columns.ts";
import { type Condition, type Db, parseJson } from "../db.ts";

export interface ActionRecord {
  id: string;
  title: string;
  description: string | null;
  priority: Priority;
  category: string | null;
  status: ActionStatus;
  source: string;
  type: ActionType;
  lane: ActionLane;
  contactId: string | null;
  dealId: string | null;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  /** What it rests on, when a model-backed run (or a runner) wrote it (src/docs/notes/model.md). */
  evidence: Evidence[];
  /** The run that wrote it. */
  runId: string | null;
  /** Hidden from the open queue until then (ms), or null. */
  snoozedUntil: number | null;
  /** Whether it rests on outside input (src/docs/notes/prompt-injection.md#provenance). */
  provenance: Provenance;
  /** Why it was held for review (status `held`, src/docs/notes/prompt-injection.md#held); kept after release. */
  heldReason: string | null;
}

/** The actions table: the inserted columns in the order inserts name them, then the snooze, which only updates set. */
const ACTIONS = table("actions", {
  id: text(),
  title: text(),
  description: nullable(text()),
  priority: text<Priority>(),
  priorityRank: integer(),
  category: nullable(text()),
  status: text<ActionStatus>(),
  source: text(),
  type: text<ActionType>(),
  lane: text<ActionLane>(),
  contactId: nullable(text()),
  dealId: nullable(text()),
  createdBy: text(),
  createdAt: integer(),
  updatedAt: integer(),
  evidence: jsonList<Evidence>(),
  runId: nullable(text()),
  orgId: text(),
  provenance: text<Provenance>(),
  heldReason: nullable(text()),
  snoozedUntil: nullable(integer()),
});

const INSERTED = ACTIONS.omit("snoozedUntil");

/** What reads select: the inserted columns (but the organization) plus the snooze. */
const READ = ACTIONS.omit("orgId");

const READ_COLUMNS = READ.select();

/** The record of a read row; the rank is the listing's cursor only. */
const toAction = (row: SqlRow): ActionRecord => {
  const { priorityRank: _, ...action } = READ.read(row);
  return action;
};

export type ActionInsert = Omit<ActionRecord, "updatedAt" | "evidence" | "runId" | "snoozedUntil" | "provenance" | "heldReason"> & {
  orgId: string;
  evidence?: Evidence[];
  runId?: string | null;
  provenance?: Provenance;
  heldReason?: string | null;
};

export function actionInsertStatement(a: ActionInsert) {
  return insertStatement(a);
}

/** Inserted only when the condition holds (a claim of the same transaction won, src/store/commit.ts). */
export function actionInsertIfStatement(a: ActionInsert, onlyIf: Condition) {
  return insertStatement(a, onlyIf);
}

function insertStatement(a: ActionInsert, onlyIf?: Condition) {
  const values = INSERTED.placeholders;
  return {
    sql: onlyIf
      ? `INSERT INTO actions (${INSERTED.insertColumns}) SELECT ${values} WHERE ${onlyIf.sql}`
      : `INSERT INTO actions (${INSERTED.insertColumns}) VALUES (${values})`,
    args: [
      ...INSERTED.args({
        ...a,
        priorityRank: priorityRank(a.priority),
        updatedAt: a.createdAt,
        evidence: a.evidence ?? [],
        runId: a.runId ?? null,
        provenance: a.provenance ?? "internal",
        heldReason: a.heldReason ?? null,
      }),
      ...(onlyIf?.args ?? []),
    ],
  };
}

/** What a caller gives for a new action (REST, MCP, the web, an agent run). */
export interface NewAction {
  title: string;
  description?: string;
  priority: Priority;
  category?: string;
  type: ActionType;
  lane?: ActionLane;
  contactId?: string;
  dealId?: string;
}

/** The one builder of a new action row: pending (held, with a reason), the lane defaulting by priority. */
export function newActionRow(
  a: NewAction & { evidence?: Evidence[]; provenance?: Provenance; heldReason?: string },
  by: { orgId: string; source: string; createdBy: string; now: number; runId?: string },
): ActionInsert {
  return {
    id: newId("act", by.now),
    orgId: by.orgId,
    title: a.title,
    description: a.description ?? null,
    priority: a.priority,
    category: a.category ?? null,
    status: a.heldReason ? "held" : "pending",
    source: by.source,
    type: a.type,
    lane: a.lane ?? defaultLane(a.priority),
    contactId: a.contactId ?? null,
    dealId: a.dealId ?? null,
    createdBy: by.createdBy,
    createdAt: by.now,
    evidence: a.evidence ?? [],
    runId: by.runId ?? null,
    provenance: a.provenance ?? "internal",
    heldReason: a.heldReason ?? null,
  };
}

/** An open action absorbs a new one saying the same thing (src/docs/notes/model.md): its evidence grows. */
export function actionEvidenceStatement(orgId: string, id: string, evidence: Evidence[], now: number) {
  return {
    sql: "UPDATE actions SET evidence = ?, updated_at = ? WHERE org_id = ? AND id = ?",
    args: [evidence.length ? JSON.stringify(evidence) : null, now, orgId, id],
  };
}

/** The domain event of a stored action. */
export const actionCreated = (a: ActionInsert): DomainEvent => ({
  type: "action.created",
  orgId: a.orgId,
  actionId: a.id,
  title: a.title,
  priority: a.priority,
  status: a.status,
  source: a.source,
  contactId: a.contactId,
  dealId: a.dealId,
  at: a.createdAt,
});

export interface ActionFilter {
  status?: ActionStatus;
  source?: string;
  type?: ActionType;
  lane?: ActionLane;
  /**
   * open: not done or dismissed, and not snoozed at `now`; snoozed: not done or dismissed, and
   * snoozed past `now`. Absent: every action. Held actions are listed only by `status: "held"`.
   */
  view?: "open" | "snoozed";
  now?: number;
}

/** The cursor is the sort key of the last row returned: (priority rank, id). */
export interface ActionCursor {
  rank: number;
  id: string;
}

/** Priority order, then newest first (ids are ULIDs, so id order is creation order). */
export async function listActions(
  db: Db,
  orgId: string,
  filter: ActionFilter,
  limit: number,
  after: ActionCursor | null,
): Promise<{ actions: ActionRecord[]; next: ActionCursor | null }> {
  const where: string[] = [];
  const args: (string | number)[] = [];
  for (const [column, value] of [
    ["status", filter.status],
    ["source", filter.source],
    ["type", filter.type],
    ["lane", filter.lane],
  ] as const) {
    if (value !== undefined) {
      where.push(` AND ${column} = ?`);
      args.push(value);
    }
  }
  // Held for review (src/docs/notes/prompt-injection.md#held): out of every listing but the one that asks for them.
  if (filter.status === undefined) where.push(" AND status <> 'held'");
  if (filter.view) {
    where.push(
      filter.view === "open"
        ? " AND status NOT IN ('done', 'dismissed') AND (snoozed_until IS NULL OR snoozed_until <= ?)"
        : " AND status NOT IN ('done', 'dismissed') AND snoozed_until > ?",
    );
    args.push(filter.now ?? 0);
  }
  const filters = where.join("");
  const pageOf = (cond: string) =>
    `SELECT ${READ_COLUMNS} FROM actions WHERE org_id = ? ${cond}${filters} ORDER BY priority_rank, id DESC LIMIT ?`;
  // Keyset pagination read straight off actions_queue (org_id, priority_rank, id DESC). The cursor
  // is two seeks, the rest of the cursor's rank then the higher ranks: the equivalent `rank > ? OR
  // (rank = ? AND id < ?)` makes SQLite scan the organization's index range instead. A compound
  // SELECT without ORDER BY returns its left arm's rows first, each arm already in queue order.
  const rows = after
    ? await db.all<SqlRow>(
        `SELECT * FROM (${pageOf("AND priority_rank = ? AND id < ?")}) AS same_rank UNION ALL SELECT * FROM (${pageOf("AND priority_rank > ?")}) AS lower_ranks LIMIT ?`,
        [orgId, after.rank, after.id, ...args, limit + 1, orgId, after.rank, ...args, limit + 1, limit + 1],
      )
    : await db.all<SqlRow>(pageOf(""), [orgId, ...args, limit + 1]);
  const page = rows.slice(0, limit);
  const last = page.length ? READ.read(page[page.length - 1]!) : undefined;
  return {
    actions: page.map(toAction),
    next: rows.length > limit && last ? { rank: last.priorityRank, id: last.id } : null,
  };
}

/** Changes only the given fields; returns the stored action, or null when it does not exist. */
export async function updateAction(
  db: Db,
  orgId: string,
  id: string,
  changes: { status?: ActionStatus; priority?: Priority; lane?: ActionLane; snoozedUntil?: number | null },
  now: number,
): Promise<ActionRecord | null> {
  const row = await db.one<SqlRow>(
    `UPDATE actions SET
        status = coalesce(?, status),
        priority = coalesce(?, priority),
        priority_rank = coalesce(?, priority_rank),
        lane = coalesce(?, lane),
        snoozed_until = CASE WHEN ? = 1 THEN ? ELSE snoozed_until END,
        updated_at = ?
      WHERE org_id = ? AND id = ?
      RETURNING ${READ_COLUMNS}`,
    [
      changes.status ?? null,
      changes.priority ?? null,
      changes.priority ? priorityRank(changes.priority) : null,
      changes.lane ?? null,
      // null wakes the action; absent leaves the snooze as it is.
      changes.snoozedUntil !== undefined ? 1 : 0,
      changes.snoozedUntil ?? null,
      now,
      orgId,
      id,
    ],
  );
  return row ? toAction(row) : null;
}

/** One action of the organization, or null. */
export async function findAction(db: Db, orgId: string, id: string): Promise<ActionRecord | null> {
  const row = await db.one<SqlRow>(`SELECT ${READ_COLUMNS} FROM actions WHERE org_id = ? AND id = ?`, [orgId, id]);
  return row ? toAction(row) : null;
}

/** Actions still awaiting approval or completion, critical first, then newest. */
export async function listOpenActions(db: Db, orgId: string, limit: number): Promise<ActionRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${READ_COLUMNS} FROM actions WHERE org_id = ? AND status IN ('pending', 'approved', 'in_progress')
      ORDER BY priority_rank, id DESC LIMIT ?`,
    [orgId, limit],
  );
  return rows.map(toAction);
}

/**
 * Actions closed (done or dismissed) since a time, newest first: a dismissed one keeps re-worded
 * repeats out for 30 days, and the model's words may not bring either back (src/docs/notes/prompt-injection.md).
 */
export async function actionsClosedSince(db: Db, orgId: string, since: number, limit: number): Promise<ActionRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${READ_COLUMNS} FROM actions WHERE org_id = ? AND status IN ('done', 'dismissed') AND updated_at >= ?
      ORDER BY updated_at DESC, id DESC LIMIT ?`,
    [orgId, since, limit],
  );
  return rows.map(toAction);
}

/** Held actions, critical first, then newest (the dashboard's "Held for review"). */
export async function listHeldActions(db: Db, orgId: string, limit: number): Promise<ActionRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${READ_COLUMNS} FROM actions WHERE org_id = ? AND status = 'held' ORDER BY priority_rank, id DESC LIMIT ?`,
    [orgId, limit],
  );
  return rows.map(toAction);
}

/**
 * An owner's review of a held action: to `pending` (released) or `dismissed`, once. `released`
 * holds inside the transaction only for the review that changed the row, so of two at once only
 * one raises `action.created` (src/store/commit.ts).
 */
export function releaseHeldActionStatement(
  orgId: string,
  id: string,
  status: "pending" | "dismissed",
  now: number,
): { statement: InStatement; released: Condition } {
  return {
    statement: {
      sql: "UPDATE actions SET status = ?, updated_at = ? WHERE org_id = ? AND id = ? AND status = 'held'",
      args: [status, now, orgId, id],
    },
    released: {
      sql: "EXISTS (SELECT 1 FROM actions WHERE org_id = ? AND id = ? AND status = ? AND updated_at = ?)",
      args: [orgId, id, status, now],
    },
  };
}

/**
 * Dismisses the open actions runs wrote that rest on one of these outside inputs (a mail, a feed
 * item, an event, a message): dismissing a suggestion says no to the same finding in the queue.
 * Crew records cited as evidence do not count: many findings cite the same contact.
 */
export async function dismissActionsResting(db: Db, orgId: string, evidence: readonly Evidence[], now: number): Promise<number> {
  const outside = ["mail", "feed_item", "calendar_event", "slack_message"];
  const refs = new Set(evidence.filter((e) => outside.includes(e.kind)).map((e) => `${e.kind} ${e.ref}`));
  if (refs.size === 0) return 0;
  // The newest open actions runs wrote, matched here: the evidence is JSON, read the same way on both engines.
  const rows = await db.all<{ id: string; evidence: string | null }>(
    `SELECT id, evidence FROM actions WHERE org_id = ? AND run_id IS NOT NULL AND status IN ('pending', 'approved', 'held')
      ORDER BY id DESC LIMIT 1000`,
    [orgId],
  );
  const ids = rows.filter((r) => parseJson<Evidence[]>(r.evidence, []).some((e) => refs.has(`${e.kind} ${e.ref}`))).map((r) => r.id);
  if (ids.length === 0) return 0;
  const result = await db.execute({
    sql: "UPDATE actions SET status = 'dismissed', updated_at = ? WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))",
    args: [now, orgId, JSON.stringify(ids)],
  });
  return result.rowsAffected;
}
