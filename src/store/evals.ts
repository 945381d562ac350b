/**
 * `crew eval` in the store (src/docs/notes/eval.md): the stored results (`eval_runs`, one row per
 * agent per evaluation) and what an evaluation needs to build its throwaway databases — the
 * schema of the organization's database, read from sqlite_master (never its rows).
 */
import type { InStatement } from "@libsql/client";
import { readSchema } from "../lib/schema-file.ts";
import type { Db } from "./db.ts";
import { splitSql } from "./migrations.ts";

export interface EvalRunRow {
  id: string;
  orgId: string;
  batchId: string;
  agentId: string;
  sets: string[];
  provider: string;
  model: string;
  passed: boolean;
  scores: unknown;
  startedAt: number;
  finishedAt: number;
}

interface Row {
  id: string;
  org_id: string;
  batch_id: string;
  agent_id: string;
  sets: string;
  provider: string;
  model: string;
  passed: number;
  scores: string;
  started_at: number;
  finished_at: number;
}

const toRun = (r: Row): EvalRunRow => ({
  id: r.id,
  orgId: r.org_id,
  batchId: r.batch_id,
  agentId: r.agent_id,
  sets: r.sets ? r.sets.split(",") : [],
  provider: r.provider,
  model: r.model,
  passed: r.passed === 1,
  scores: JSON.parse(r.scores),
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export function evalRunInsertStatement(r: EvalRunRow): InStatement {
  return {
    sql: `INSERT INTO eval_runs (id, org_id, batch_id, agent_id, sets, provider, model, passed, scores, started_at, finished_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [
      r.id,
      r.orgId,
      r.batchId,
      r.agentId,
      r.sets.join(","),
      r.provider,
      r.model,
      r.passed ? 1 : 0,
      JSON.stringify(r.scores),
      r.startedAt,
      r.finishedAt,
    ],
  };
}

/** The agent's latest evaluation, whatever model it measured. */
export async function latestEvalOfAgent(db: Db, orgId: string, agentId: string): Promise<EvalRunRow | null> {
  const row = await db.one<Row>("SELECT * FROM eval_runs WHERE org_id = ? AND agent_id = ? ORDER BY finished_at DESC, id DESC LIMIT 1", [
    orgId,
    agentId,
  ]);
  return row ? toRun(row) : null;
}

/** Every row of the organization's latest evaluation of one model (provider and model name). */
export async function latestEvalOfModel(db: Db, orgId: string, provider: string, model: string): Promise<EvalRunRow[]> {
  const rows = await db.all<Row>(
    `SELECT * FROM eval_runs WHERE org_id = ?1 AND batch_id = (
       SELECT batch_id FROM eval_runs WHERE org_id = ?1 AND provider = ?2 AND model = ?3 ORDER BY finished_at DESC, id DESC LIMIT 1)
     ORDER BY agent_id`,
    [orgId, provider, model],
  );
  return rows.map(toRun);
}

/**
 * The statements that recreate the database's tables, indexes and triggers (tables first), and
 * its schema_meta rows: a throwaway database built from them is at the same schema version.
 */
export async function schemaOf(db: Db): Promise<InStatement[]> {
  // The throwaway databases are SQLite files: on PostgreSQL, this release's schema.sql is the
  // organization's schema in SQLite's words (a PostgreSQL database is always at the current version).
  if (db.engine === "postgres") return splitSql(readSchema());
  const objects = await db.all<{ type: string; sql: string }>(
    `SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
      ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid`,
  );
  const meta = await db.all<{ key: string; value: string }>("SELECT key, value FROM schema_meta");
  return [
    ...objects.map((o) => o.sql),
    ...meta.map((m) => ({
      sql: "INSERT INTO schema_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      args: [m.key, m.value],
    })),
  ];
}
