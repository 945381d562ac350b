/** The shared insight feed (src/docs/notes/web-app.md): what agents post, what runs, briefings and the web app read. */
import type { InStatement } from "@libsql/client";
import type { Evidence } from "../../domain.ts";
import { integer, jsonList, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface InsightRecord {
  id: string;
  agent: string;
  title: string;
  detail: string | null;
  type: string;
  impact: "low" | "medium" | "high";
  createdAt: number;
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
});

/** The columns a read selects, with what an insight rests on (the web app's feed, a run's context). */
const RECENT = INSIGHTS.pick("id", "agent", "title", "detail", "type", "impact", "createdAt", "evidence");

export type InsightInsert = InsightRecord & { orgId: string; createdBy: string; evidence?: Evidence[] };

export function insightInsertStatement(i: InsightInsert): InStatement {
  return {
    sql: `INSERT INTO insights (${INSIGHTS.insertColumns}) VALUES (${INSIGHTS.placeholders})`,
    args: INSIGHTS.args({ ...i, evidence: i.evidence ?? [] }),
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
): Promise<(InsightRecord & { evidence: Evidence[] })[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${RECENT.select()} FROM insights WHERE org_id = ? AND created_at > ?
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
): Promise<{ insights: (InsightRecord & { evidence: Evidence[] })[]; next: string | null }> {
  const rows = await db.all<SqlRow>(
    `SELECT ${RECENT.select()} FROM insights WHERE org_id = ?${before ? " AND id < ?" : ""}
      ORDER BY id DESC LIMIT ?`,
    before ? [orgId, before, limit + 1] : [orgId, limit + 1],
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
    db.all<{ type: string; n: number }>("SELECT type, count(*) AS n FROM insights WHERE org_id = ? AND created_at > ? GROUP BY type", [
      orgId,
      since,
    ]),
    db.all<{ title: string }>(
      "SELECT title FROM insights WHERE org_id = ? AND created_at > ? AND impact = 'high' ORDER BY created_at DESC, id DESC LIMIT 3",
      [orgId, since],
    ),
  ]);
  return { byType: Object.fromEntries(types.map((t) => [t.type, t.n])), highImpact: high.map((h) => h.title) };
}
