/**
 * Whether an organization has content of its own (the dashboard's "getting started" shows until it
 * does): an action, contact, insight, handoff or suggestion, or a run of an agent that is not one
 * of the built-in composers. Those (standup, briefing, pulse, dna) run on their own at start and on
 * schedule from whatever is stored, so their runs say nothing about whether anyone used Crew yet.
 * Each test is an index seek (org_id first), so the answer costs the same on a busy organization.
 */
import type { Db } from "../db.ts";

export async function hasOwnContent(db: Db, orgId: string, composers: readonly string[]): Promise<boolean> {
  const tables = ["actions", "contacts", "insights", "handoffs", "suggestions"];
  const placeholders = composers.map(() => "?").join(", ") || "''";
  const row = await db.one<{ own: number }>(
    `SELECT (${tables.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE org_id = ?)`).join(" OR ")}
       OR EXISTS (SELECT 1 FROM agents a JOIN agent_runs r ON r.org_id = a.org_id AND r.agent_id = a.id
                   WHERE a.org_id = ? AND a.id NOT IN (${placeholders}))) AS own`,
    [...tables.map(() => orgId), orgId, ...composers],
  );
  return Boolean(row?.own);
}
