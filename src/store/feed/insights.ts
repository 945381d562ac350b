/** The shared insight feed (src/docs/notes/web-app.md): what agents post, what runs, briefings and the web app read. */
import type { InStatement } from "@libsql/client";
import type { Evidence, Provenance } from "../../domain.ts";
import { boolean, integer, jsonList, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface InsightRecord {
  id: string;
  agent: string;
  title: string;
  detail: string | null;
  type: string;
  impact: "low" | "medium" | "high";
  createdAt: number;
  /** Whether it rests on outside input (src/docs/notes/prompt-injection.md#provenance). */
  provenance: Provenance;
}

/** The insights table, in the order inserts name its columns. */
const INSIGHTS = table("insights", {
  id: text(),
  orgId: text(),
  agent: text(),
  title: text(),
  detail: nullable(text()),
  type: text(),
  impact: text<InsightRecord["impact"]>(),
  createdBy: text(),
  createdAt: integer(),
  evidence: jsonList<Evidence>(),
  provenance: text<Provenance>(),
  held: boolean(),
  heldReason: nullable(text()),
});

/** The columns a read selects, with what an insight rests on (the web app's feed, a run's context) and the policy's marks. */
const RECENT = INSIGHTS.pick(
  "id",
  "agent",
  "title",
  "detail",
  "type",
  "impact",
  "createdAt",
  "evidence",
  "provenance",
  "held",
  "heldReason",
);

export type InsightInsert = Omit<InsightRecord, "provenance"> & {
  orgId: string;
  createdBy: string;
  evidence?: Evidence[];
  provenance?: Provenance;
  /** Held for an owner's review (src/docs/notes/prompt-injection.md#held): out of the feed until released. */
  heldReason?: string | null;
};

export function insightInsertStatement(i: InsightInsert): InStatement {
  return {
    sql: `INSERT INTO insights (${INSIGHTS.insertColumns}) VALUES (${INSIGHTS.placeholders})`,
    args: INSIGHTS.args({
      ...i,
      evidence: i.evidence ?? [],
      provenance: i.provenance ?? "internal",
      held: Boolean(i.heldReason),
      heldReason: i.heldReason ?? null,
    }),
  };
}

export async function insertInsight(db: Db, i: InsightInsert): Promise<void> {
  await db.execute(insightInsertStatement(i));
}

/** Insights posted since a time, high impact first, then newest, with the evidence each rests on (a run's context). */
export async function listInsightsSince(
  db: Db,
  orgId: string,
  since: number,
  limit = 50,
): Promise<(InsightRecord & { evidence: Evidence[]; held: boolean; heldReason: string | null })[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${RECENT.select()} FROM insights WHERE org_id = ? AND created_at > ? AND held = 0
      ORDER BY CASE impact WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id DESC LIMIT ?`,
    [orgId, since, limit],
  );
  return rows.map(RECENT.read);
}

/** Insights newest first; `before` is the last id of the previous page (ids are ULIDs: id order is time order). */
export async function listRecentInsights(
  db: Db,
  orgId: string,
  limit: number,
  before: string | null,
  /** Held insights are listed only when asked for (src/docs/notes/prompt-injection.md#held). */
  held = false,
): Promise<{ insights: (InsightRecord & { evidence: Evidence[]; held: boolean; heldReason: string | null })[]; next: string | null }> {
  const rows = await db.all<SqlRow>(
    `SELECT ${RECENT.select()} FROM insights WHERE org_id = ? AND held = ?${before ? " AND id < ?" : ""}
      ORDER BY id DESC LIMIT ?`,
    before ? [orgId, held ? 1 : 0, before, limit + 1] : [orgId, held ? 1 : 0, limit + 1],
  );
  const page = rows.slice(0, limit).map(RECENT.read);
  return {
    insights: page,
    next: rows.length > limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

/** What the dna agent reads of the feed since a time: how many insights per type, the latest high-impact titles (at most 3). */
export async function insightFigures(
  db: Db,
  orgId: string,
  since: number,
): Promise<{ byType: Record<string, number>; highImpact: string[] }> {
  const [types, high] = await Promise.all([
    db.all<{ type: string; n: number }>(
      "SELECT type, count(*) AS n FROM insights WHERE org_id = ? AND created_at > ? AND held = 0 GROUP BY type",
      [orgId, since],
    ),
    db.all<{ title: string }>(
      "SELECT title FROM insights WHERE org_id = ? AND created_at > ? AND impact = 'high' AND held = 0 ORDER BY created_at DESC, id DESC LIMIT 3",
      [orgId, since],
    ),
  ]);
  return { byType: Object.fromEntries(types.map((t) => [t.type, t.n])), highImpact: high.map((h) => h.title) };
}

/** Insights posted since a time (held ones too), newest first: what a run's new insights are compared with, across agents. */
export async function insightsToCompare(
  db: Db,
  orgId: string,
  since: number,
  limit = 300,
): Promise<(InsightRecord & { evidence: Evidence[] })[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${RECENT.select()} FROM insights WHERE org_id = ? AND created_at > ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    [orgId, since, limit],
  );
  return rows.map(RECENT.read);
}

/** An insight absorbs another saying the same thing: its evidence grows, nothing is posted again. */
export function insightEvidenceStatement(orgId: string, id: string, evidence: Evidence[]): InStatement {
  return { sql: "UPDATE insights SET evidence = ? WHERE org_id = ? AND id = ?", args: [JSON.stringify(evidence), orgId, id] };
}

/** An owner's release of a held insight: in the feed from now on. */
export async function releaseInsight(db: Db, orgId: string, id: string): Promise<boolean> {
  const result = await db.execute({ sql: "UPDATE insights SET held = 0 WHERE org_id = ? AND id = ? AND held = 1", args: [orgId, id] });
  return result.rowsAffected > 0;
}

/** An owner's dismissal of a held insight: removed (it was never in the feed). */
export async function dismissHeldInsight(db: Db, orgId: string, id: string): Promise<boolean> {
  const result = await db.execute({ sql: "DELETE FROM insights WHERE org_id = ? AND id = ? AND held = 1", args: [orgId, id] });
  return result.rowsAffected > 0;
}
