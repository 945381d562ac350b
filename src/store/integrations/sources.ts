/**
 * Sources of the model-backed agents (src/docs/notes/sources.md), `sources` table: an organization's IMAP mailbox
 * (at most one) and its feeds. `config` is JSON whose password is only ever sealed; `state` is JSON
 * of what the last successful run saw. The organization-wide alerts a failing source raises
 * (`imap`, `feeds`) are in alerts.ts.
 */
import type { InStatement } from "@libsql/client";
import { custom, integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

/**
 * Rows as plain objects through `db.execute` only: it means the same on the libsql client and on
 * the explicit store value of issue 9, so this file needs no change when that lands.
 */
async function rowsOf<T>(db: Db, sql: string, args: (string | number | null)[]): Promise<T[]> {
  const result = await db.execute({ sql, args });
  return result.rows.map((row) => ({ ...row }) as T);
}

async function firstOf<T>(db: Db, sql: string, args: (string | number | null)[]): Promise<T | null> {
  return (await rowsOf<T>(db, sql, args))[0] ?? null;
}

function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

export type SourceKind = "imap" | "feed";

export interface StoredSource {
  id: string;
  orgId: string;
  kind: SourceKind;
  /** JSON text; interpreted by src/integrations/sources.ts. */
  config: string;
  agents: string[];
  /** JSON text; interpreted by the reader of its kind. */
  state: string;
  createdAt: number;
  updatedAt: number;
  /** The last read that worked; the last that did not, and the reason a person is shown. */
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastFailureReason: string | null;
}

/** A stored list of agent ids: JSON, anything else read as none. */
const agentList = custom<string[]>(
  (value) => parseList(String(value ?? "")),
  (value) => JSON.stringify(value),
);

/** The sources table. */
const SOURCES = table("sources", {
  id: text(),
  orgId: text(),
  kind: text<SourceKind>(),
  config: text(),
  agents: agentList(),
  state: text(),
  createdAt: integer(),
  updatedAt: integer(),
  lastSuccessAt: nullable(integer()),
  lastFailureAt: nullable(integer()),
  lastFailureReason: nullable(text()),
});

const COLUMNS = SOURCES.select();

const toRow = (row: SqlRow): StoredSource => SOURCES.read(row);

/** Records how a read of the source went: null `failure` is a success. */
export async function recordSourceOutcome(db: Db, orgId: string, id: string, failure: string | null, now: number): Promise<void> {
  await db.run(
    failure === null
      ? "UPDATE sources SET last_success_at = ? WHERE org_id = ? AND id = ?"
      : "UPDATE sources SET last_failure_at = ?, last_failure_reason = ? WHERE org_id = ? AND id = ?",
    failure === null ? [now, orgId, id] : [now, failure.slice(0, 500), orgId, id],
  );
}

/** The organization's sources, mailbox first, then feeds oldest first (the order they were added). */
export async function listSources(db: Db, orgId: string): Promise<StoredSource[]> {
  const rows = await rowsOf<SqlRow>(db, `SELECT ${COLUMNS} FROM sources WHERE org_id = ? ORDER BY kind = 'imap' DESC, created_at, id`, [
    orgId,
  ]);
  return rows.map(toRow);
}

export async function getSource(db: Db, orgId: string, id: string): Promise<StoredSource | null> {
  const row = await firstOf<SqlRow>(db, `SELECT ${COLUMNS} FROM sources WHERE org_id = ? AND id = ?`, [orgId, id]);
  return row && toRow(row);
}

/** The feeds an agent reads (feeds naming it). */
export async function feedsOfAgent(db: Db, orgId: string, agentId: string): Promise<StoredSource[]> {
  const rows = await rowsOf<SqlRow>(
    db,
    `SELECT ${COLUMNS} FROM sources
      WHERE org_id = ? AND kind = 'feed' AND EXISTS (SELECT 1 FROM json_each(sources.agents) WHERE value = ?)
      ORDER BY created_at, id`,
    [orgId, agentId],
  );
  return rows.map(toRow);
}

export async function mailboxOf(db: Db, orgId: string): Promise<StoredSource | null> {
  const row = await firstOf<SqlRow>(db, `SELECT ${COLUMNS} FROM sources WHERE org_id = ? AND kind = 'imap'`, [orgId]);
  return row && toRow(row);
}

/** Adds a feed, or (for a mailbox) replaces the organization's one mailbox, its read position with it. */
export function saveSourceStatement(
  s: Omit<StoredSource, "state" | "createdAt" | "updatedAt" | "lastSuccessAt" | "lastFailureAt" | "lastFailureReason">,
  now: number,
): InStatement {
  if (s.kind === "imap") {
    return {
      sql: `INSERT INTO sources (id, org_id, kind, config, agents, state, created_at, updated_at)
            VALUES (?, ?, 'imap', ?, ?, '{}', ?, ?)
            ON CONFLICT (org_id) WHERE kind = 'imap'
            DO UPDATE SET id = excluded.id, config = excluded.config, agents = excluded.agents, state = '{}',
                          created_at = excluded.created_at, updated_at = excluded.updated_at,
                          last_success_at = NULL, last_failure_at = NULL, last_failure_reason = NULL`,
      args: [s.id, s.orgId, s.config, JSON.stringify(s.agents), now, now],
    };
  }
  return {
    sql: `INSERT INTO sources (id, org_id, kind, config, agents, state, created_at, updated_at) VALUES (?, ?, 'feed', ?, ?, '{}', ?, ?)`,
    args: [s.id, s.orgId, s.config, JSON.stringify(s.agents), now, now],
  };
}

export function deleteSourceStatement(orgId: string, id: string): InStatement {
  return { sql: "DELETE FROM sources WHERE org_id = ? AND id = ?", args: [orgId, id] };
}

/**
 * Records what a run saw. Only when the source is still the one that was read (same id, not
 * replaced or deleted meanwhile): a read position never lands on a newer mailbox.
 */
export async function saveSourceState(db: Db, orgId: string, id: string, state: string, now: number): Promise<void> {
  await db.execute({ sql: "UPDATE sources SET state = ?, updated_at = ? WHERE org_id = ? AND id = ?", args: [state, now, orgId, id] });
}
