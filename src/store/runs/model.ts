/**
 * The model connection's rows (src/docs/notes/model.md): an organization's model settings (API key sealed by the
 * caller), per-agent instruction overrides, the tokens each model-backed run spent. The
 * organization's `model` alert is in integrations/alerts.ts.
 */
import type { InStatement } from "@libsql/client";
import type { ModelProvider } from "../../domain.ts";
import { integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface StoredModelSettings {
  provider: ModelProvider;
  baseUrl: string | null;
  model: string;
  /** Sealed (src/integrations/secret-box.ts), or null when the endpoint needs none. */
  apiKey: string | null;
  dailyTokens: number | null;
  updatedAt: number;
}

/** The model_settings table, in the order inserts name its columns. */
const MODEL_SETTINGS = table("model_settings", {
  orgId: text(),
  provider: text<ModelProvider>(),
  baseUrl: nullable(text()),
  model: text(),
  apiKey: nullable(text()),
  dailyTokens: nullable(integer()),
  updatedAt: integer(),
});

const SETTINGS = MODEL_SETTINGS.omit("orgId");

export async function getModelSettings(db: Db, orgId: string): Promise<StoredModelSettings | null> {
  return SETTINGS.one(db, `SELECT ${SETTINGS.select()} FROM model_settings WHERE org_id = ?`, [orgId]);
}

export async function saveModelSettings(db: Db, orgId: string, s: StoredModelSettings): Promise<void> {
  await db.execute({
    sql: `INSERT INTO model_settings (${MODEL_SETTINGS.insertColumns}) VALUES (${MODEL_SETTINGS.placeholders})
          ON CONFLICT (org_id) DO UPDATE SET provider = excluded.provider, base_url = excluded.base_url, model = excluded.model,
            api_key = excluded.api_key, daily_tokens = excluded.daily_tokens, updated_at = excluded.updated_at`,
    args: MODEL_SETTINGS.args({ ...s, orgId }),
  });
}

export async function deleteModelSettings(db: Db, orgId: string): Promise<boolean> {
  const result = await db.execute({ sql: "DELETE FROM model_settings WHERE org_id = ?", args: [orgId] });
  return result.rowsAffected > 0;
}

/** The organization's instruction overrides by agent id. */
export async function listInstructionOverrides(db: Db, orgId: string): Promise<Map<string, string>> {
  const rows = await db.all<{ agent_id: string; instructions: string }>(
    "SELECT agent_id, instructions FROM agent_instructions WHERE org_id = ?",
    [orgId],
  );
  return new Map(rows.map((r) => [r.agent_id, r.instructions]));
}

export async function getInstructionOverride(db: Db, orgId: string, agentId: string): Promise<string | null> {
  const row = await db.one<{ instructions: string }>("SELECT instructions FROM agent_instructions WHERE org_id = ? AND agent_id = ?", [
    orgId,
    agentId,
  ]);
  return row?.instructions ?? null;
}

/** Replaces the agent's instructions; null goes back to the catalog's default. */
export async function setInstructionOverride(
  db: Db,
  orgId: string,
  agentId: string,
  instructions: string | null,
  now: number,
): Promise<void> {
  if (instructions === null) {
    await db.execute({ sql: "DELETE FROM agent_instructions WHERE org_id = ? AND agent_id = ?", args: [orgId, agentId] });
    return;
  }
  await db.execute({
    sql: `INSERT INTO agent_instructions (org_id, agent_id, instructions, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (org_id, agent_id) DO UPDATE SET instructions = excluded.instructions, updated_at = excluded.updated_at`,
    args: [orgId, agentId, instructions, now],
  });
}

export interface RunUsage {
  tokensIn: number;
  tokensOut: number;
}

/** Adds a call's tokens to the run's (a retry adds to the first attempt's). */
export function addRunUsageStatement(u: { runId: string; orgId: string; agentId: string; at: number } & RunUsage): InStatement {
  return {
    sql: `INSERT INTO run_usage (run_id, org_id, agent_id, tokens_in, tokens_out, at) VALUES (?, ?, ?, ?, ?, ?)
          ON CONFLICT (run_id) DO UPDATE SET tokens_in = run_usage.tokens_in + excluded.tokens_in, tokens_out = run_usage.tokens_out + excluded.tokens_out`,
    args: [u.runId, u.orgId, u.agentId, u.tokensIn, u.tokensOut, u.at],
  };
}

/** Tokens the organization's runs spent since a time (the start of its day). */
export async function tokensSince(db: Db, orgId: string, since: number): Promise<number> {
  const row = await db.one<{ n: number | null }>("SELECT sum(tokens_in + tokens_out) AS n FROM run_usage WHERE org_id = ? AND at >= ?", [
    orgId,
    since,
  ]);
  return Number(row?.n ?? 0);
}

const USAGE = table("run_usage", { tokensIn: integer(), tokensOut: integer() });

/** Tokens of these runs, by run id (runs without a model call are absent). */
export async function usageOfRuns(db: Db, runIds: string[]): Promise<Map<string, RunUsage>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.all<SqlRow>(
    `SELECT run_id, tokens_in, tokens_out FROM run_usage WHERE run_id IN (${runIds.map(() => "?").join(", ")})`,
    runIds,
  );
  return new Map(rows.map((row) => [String(row.run_id), USAGE.read(row)]));
}

const MODEL_INPUTS = table("agent_runs", { hash: text("input_hash"), finishedAt: integer() });

/** The input fingerprint and end of the agent's latest successful model run (src/docs/notes/model.md: unchanged inputs are not sent again). */
export async function lastModelInputs(db: Db, orgId: string, agentId: string): Promise<{ hash: string; finishedAt: number } | null> {
  const row = await db.one<SqlRow>(
    `SELECT input_hash, finished_at FROM agent_runs WHERE org_id = ? AND agent_id = ? AND status = 'ok' AND input_hash IS NOT NULL
      ORDER BY finished_at DESC, id DESC LIMIT 1`,
    [orgId, agentId],
  );
  return row ? MODEL_INPUTS.read(row) : null;
}

export function inputHashStatement(runId: string, hash: string): InStatement {
  return { sql: "UPDATE agent_runs SET input_hash = ? WHERE id = ?", args: [hash, runId] };
}
