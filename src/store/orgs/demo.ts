/**
 * Storage side of `crew seed --demo`: an insert-if-absent statement for contacts (the API only
 * upserts), and the `demo_rows` bookkeeping that lets a second run
 * replace exactly the rows the first one inserted, leaving everything else alone.
 */
import type { InStatement } from "@libsql/client";
import type { Db } from "../db.ts";

/** Every table the demo writes to; the names are constants, never input. */
export const DEMO_TABLES = [
  "agent_runs",
  "standups",
  "profiles",
  "suggestions",
  "actions",
  "contacts",
  "handoffs",
  "insights",
  "integration_alerts",
  "briefings",
] as const;
export type DemoTable = (typeof DEMO_TABLES)[number];

/**
 * Deletes the rows a previous demo run inserted into this organization, then forgets them (and
 * only them: another organization's demo stays, issue 14).
 */
export function forgetDemoStatements(orgId: string): InStatement[] {
  return [
    ...DEMO_TABLES.map((table) => ({
      sql: `DELETE FROM ${table} WHERE org_id = ? AND id IN (SELECT row_id FROM demo_rows WHERE table_name = '${table}')`,
      args: [orgId],
    })),
    ...DEMO_TABLES.map((table) => `DELETE FROM demo_rows WHERE table_name = '${table}' AND row_id NOT IN (SELECT id FROM ${table})`),
  ];
}

export function recordDemoRowsStatements(rows: Partial<Record<DemoTable, string[]>>): InStatement[] {
  return Object.entries(rows).flatMap(([table, ids]) =>
    (ids ?? []).map((id) => ({
      sql: "INSERT INTO demo_rows (table_name, row_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
      args: [table, id],
    })),
  );
}

/** How many rows earlier demo runs left in this organization (all tables). */
export async function countDemoRows(db: Db, orgId: string): Promise<number> {
  let total = 0;
  for (const table of DEMO_TABLES) {
    const row = await db.one<{ n: number }>(
      `SELECT count(*) AS n FROM ${table} WHERE org_id = ? AND id IN (SELECT row_id FROM demo_rows WHERE table_name = '${table}')`,
      [orgId],
    );
    total += row?.n ?? 0;
  }
  return total;
}

/**
 * One transaction: the previous demo rows go, the new ones come in and are recorded. Either all
 * of it happens or none (a failure leaves the earlier demo content as it was).
 */
export async function replaceDemoRows(
  db: Db,
  orgId: string,
  inserts: InStatement[],
  rows: Partial<Record<DemoTable, string[]>>,
): Promise<void> {
  await db.batch([...forgetDemoStatements(orgId), ...inserts, ...recordDemoRowsStatements(rows)], "write");
}

export async function recordDemoRows(db: Db, rows: Partial<Record<DemoTable, string[]>>): Promise<void> {
  const statements = recordDemoRowsStatements(rows);
  if (statements.length > 0) await db.batch(statements, "write");
}

/**
 * When each agent of the organization last finished a run of its own (not one of a previous demo):
 * the demo's runs of an agent go after it, so they are that agent's latest (src/docs/notes/runtimes.md).
 */
export async function newestOwnRunTimes(db: Db, orgId: string): Promise<Map<string, number>> {
  const rows = await db.all<{ agent_id: string; at: number | null }>(
    `SELECT agent_id, max(coalesce(finished_at, started_at)) AS at FROM agent_runs
      WHERE org_id = ? AND id NOT IN (SELECT row_id FROM demo_rows WHERE table_name = 'agent_runs')
      GROUP BY agent_id`,
    [orgId],
  );
  return new Map(rows.filter((r) => r.at !== null).map((r) => [r.agent_id, r.at as number]));
}
