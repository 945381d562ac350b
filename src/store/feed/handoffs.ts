/** Handoffs between agents (src/docs/notes/agents-runtime.md): a run's claim of them is in runs/runs.ts. */
import type { InStatement } from "@libsql/client";
import { type Evidence, type Priority, type Provenance, priorityRank } from "../../domain.ts";
import { boolean, integer, jsonList, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

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
  /** Whether it rests on outside input (src/docs/notes/prompt-injection.md#provenance). */
  provenance: Provenance;
}

/** The handoffs table, in the order inserts name its columns. */
export const HANDOFFS = table("handoffs", {
  id: text(),
  orgId: text(),
  from: text("from_agent"),
  to: text("to_agent"),
  title: text(),
  context: nullable(text()),
  priority: text<Priority>(),
  priorityRank: integer(),
  type: nullable(text()),
  status: text<HandoffStatus>(),
  createdBy: text(),
  createdAt: integer(),
  updatedAt: integer(),
  evidence: jsonList<Evidence>(),
  provenance: text<Provenance>(),
  held: boolean(),
  heldReason: nullable(text()),
});

/** The columns a read of a handoff selects (`id, from_agent, to_agent, title, context, priority, type, created_at, provenance`). */
const HANDOFF = HANDOFFS.omit("orgId", "priorityRank", "status", "createdBy", "updatedAt", "evidence", "held", "heldReason");

export const handoffOf = (row: SqlRow): Handoff => HANDOFF.read(row);

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
  provenance?: Provenance;
  /** Held for an owner's review (src/docs/notes/prompt-injection.md#held): not claimed until released. */
  heldReason?: string | null;
}

export function handoffInsertStatement(h: HandoffInsert): InStatement {
  return {
    sql: `INSERT INTO handoffs (${HANDOFFS.insertColumns})
          VALUES (${HANDOFFS.placeholders})`,
    args: HANDOFFS.args({
      ...h,
      priorityRank: priorityRank(h.priority),
      status: h.status ?? "queued",
      updatedAt: h.updatedAt ?? h.createdAt,
      evidence: h.evidence ?? [],
      provenance: h.provenance ?? "internal",
      held: Boolean(h.heldReason),
      heldReason: h.heldReason ?? null,
    }),
  };
}

export async function insertHandoff(db: Db, h: HandoffInsert): Promise<void> {
  await db.execute(handoffInsertStatement(h));
}

export interface HandoffRecord extends Handoff {
  status: HandoffStatus;
  createdAt: number;
  updatedAt: number;
  /** What it rests on, when a run wrote it. */
  evidence: Evidence[];
  held: boolean;
  heldReason: string | null;
}

/** What the web app's listing reads (src/docs/notes/web-app.md). */
const LISTED = HANDOFFS.omit("orgId", "priorityRank", "createdBy");

/** Handoffs of one status (claimed counts as queued: the run has not reported yet), priority then newest. */
export async function listHandoffs(
  db: Db,
  orgId: string,
  filter: { status?: "queued" | "done" | "failed"; to?: string; held?: boolean },
  limit: number,
): Promise<HandoffRecord[]> {
  // Held handoffs are listed only when asked for (src/docs/notes/prompt-injection.md#held).
  const where = ["org_id = ?", "held = ?"];
  const args: (string | number)[] = [orgId, filter.held ? 1 : 0];
  if (filter.status === "queued") where.push("status IN ('queued', 'claimed')");
  else if (filter.status) {
    where.push("status = ?");
    args.push(filter.status);
  }
  if (filter.to) {
    where.push("to_agent = ?");
    args.push(filter.to);
  }
  const rows = await db.all<SqlRow>(
    `SELECT ${LISTED.select()} FROM handoffs
      WHERE ${where.join(" AND ")} ORDER BY priority_rank, id DESC LIMIT ?`,
    [...args, limit],
  );
  return rows.map(LISTED.read);
}

/** Queued handoffs to one agent (held ones too): what a new handoff of a run is compared with, so it is queued once. */
export async function queuedHandoffsTo(db: Db, orgId: string, to: string, limit = 200): Promise<HandoffRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${LISTED.select()} FROM handoffs WHERE org_id = ? AND to_agent = ? AND status = 'queued' ORDER BY id DESC LIMIT ?`,
    [orgId, to, limit],
  );
  return rows.map(LISTED.read);
}

/** A queued handoff absorbs a new one asking the same: its evidence grows, nothing is queued again. */
export function handoffEvidenceStatement(orgId: string, id: string, evidence: Evidence[], now: number): InStatement {
  return {
    sql: "UPDATE handoffs SET evidence = ?, updated_at = ? WHERE org_id = ? AND id = ?",
    args: [JSON.stringify(evidence), now, orgId, id],
  };
}

/** An owner's release of a held handoff: queued for its agent from now on. */
export async function releaseHandoff(db: Db, orgId: string, id: string, now: number): Promise<boolean> {
  const result = await db.execute({
    sql: "UPDATE handoffs SET held = 0, updated_at = ? WHERE org_id = ? AND id = ? AND held = 1",
    args: [now, orgId, id],
  });
  return result.rowsAffected > 0;
}

/** An owner's dismissal of a held handoff: it is closed as failed and never claimed. */
export async function dismissHeldHandoff(db: Db, orgId: string, id: string, now: number): Promise<boolean> {
  const result = await db.execute({
    sql: "UPDATE handoffs SET status = 'failed', held = 0, held_reason = coalesce(held_reason, '') || ' (dismissed)', updated_at = ? WHERE org_id = ? AND id = ? AND held = 1",
    args: [now, orgId, id],
  });
  return result.rowsAffected > 0;
}
