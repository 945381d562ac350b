/** Handoffs between agents (src/docs/notes/agents-runtime.md): a run's claim of them is in runs/runs.ts. */
import type { InStatement } from "@libsql/client";
import { type Evidence, type Priority, priorityRank } from "../../domain.ts";
import { integer, jsonList, nullable, type SqlRow, table, text } from "../columns.ts";
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
});

/** The columns a read of a handoff selects (`id, from_agent, to_agent, title, context, priority, type, created_at`). */
const HANDOFF = HANDOFFS.omit("orgId", "priorityRank", "status", "createdBy", "updatedAt", "evidence");

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
}

/** What the web app's listing reads (src/docs/notes/web-app.md). */
const LISTED = HANDOFFS.omit("orgId", "priorityRank", "createdBy");

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
  const rows = await db.all<SqlRow>(
    `SELECT ${LISTED.select()} FROM handoffs
      WHERE ${where.join(" AND ")} ORDER BY priority_rank, id DESC LIMIT ?`,
    [...args, limit],
  );
  return rows.map(LISTED.read);
}
