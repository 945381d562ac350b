/**
 * `crew eval` in the store (src/docs/notes/eval.md): the stored results (`eval_runs`, one row per
 * agent per evaluation) and what an evaluation needs to build its throwaway databases — the
 * schema of the organization's database, read from sqlite_master (never its rows).
 */
import type { InStatement } from "@libsql/client";
import { readSchema } from "../../lib/schema-file.ts";
import { boolean, custom, integer, json, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";
import { splitSql } from "../migrations.ts";

export interface EvalRunRecord {
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

/** The sets an evaluation ran, stored comma-separated. */
const commaList = custom<string[]>(
  (value) => (value ? String(value).split(",") : []),
  (value) => value.join(","),
);

/** The eval_runs table, in the order inserts name its columns. */
const EVAL_RUNS = table("eval_runs", {
  id: text(),
  orgId: text(),
  batchId: text(),
  agentId: text(),
  sets: commaList(),
  provider: text(),
  model: text(),
  passed: boolean(),
  scores: json<unknown>(null),
  startedAt: integer(),
  finishedAt: integer(),
});

const toRun = (row: SqlRow): EvalRunRecord => EVAL_RUNS.read(row);

export function evalRunInsertStatement(r: EvalRunRecord): InStatement {
  return {
    sql: `INSERT INTO eval_runs (${EVAL_RUNS.insertColumns})
          VALUES (${EVAL_RUNS.placeholders})`,
    args: EVAL_RUNS.args(r),
  };
}

/** The agent's latest evaluation, whatever model it measured. */
export async function latestEvalOfAgent(db: Db, orgId: string, agentId: string): Promise<EvalRunRecord | null> {
  const row = await db.one<SqlRow>("SELECT * FROM eval_runs WHERE org_id = ? AND agent_id = ? ORDER BY finished_at DESC, id DESC LIMIT 1", [
    orgId,
    agentId,
  ]);
  return row ? toRun(row) : null;
}

/** Every row of the organization's latest evaluation of one model (provider and model name). */
export async function latestEvalOfModel(db: Db, orgId: string, provider: string, model: string): Promise<EvalRunRecord[]> {
  const rows = await db.all<SqlRow>(
    `SELECT * FROM eval_runs WHERE org_id = ?1 AND batch_id = (
       SELECT batch_id FROM eval_runs WHERE org_id = ?1 AND provider = ?2 AND model = ?3 ORDER BY finished_at DESC, id DESC LIMIT 1)
     ORDER BY agent_id`,
    [orgId, provider, model],
  );
  return rows.map(toRun);
}

/** One past evaluation: when, which model, how many agents, which missed a bar. */
export interface EvalBatch {
  batchId: string;
  provider: string;
  model: string;
  finishedAt: number;
  agents: number;
  failedAgents: string[];
  passed: boolean;
}

/** The organization's latest evaluations, newest first. */
export async function evalHistory(db: Db, orgId: string, limit: number): Promise<EvalBatch[]> {
  const rows = await db.all<{ batch_id: string; provider: string; model: string; finished_at: number; agent_id: string; passed: unknown }>(
    `SELECT batch_id, provider, model, finished_at, agent_id, passed FROM eval_runs WHERE org_id = ?1 AND batch_id IN (
       SELECT batch_id FROM eval_runs WHERE org_id = ?1 GROUP BY batch_id ORDER BY MAX(finished_at) DESC, batch_id DESC LIMIT ?2)
     ORDER BY finished_at DESC, batch_id DESC, agent_id`,
    [orgId, limit],
  );
  const batches = new Map<string, EvalBatch>();
  for (const r of rows) {
    const batch = batches.get(r.batch_id) ?? {
      batchId: r.batch_id,
      provider: r.provider,
      model: r.model,
      finishedAt: Number(r.finished_at),
      agents: 0,
      failedAgents: [],
      passed: true,
    };
    batch.agents += 1;
    if (!(r.passed === true || Number(r.passed) === 1)) {
      batch.failedAgents.push(r.agent_id);
      batch.passed = false;
    }
    batches.set(r.batch_id, batch);
  }
  return [...batches.values()];
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
