/**
 * PostgreSQL's schema, made from schema.sql (src/docs/notes/postgres.md#schema-and-versions): the
 * tables, keys, indexes and checks are the same; the words the two engines do not share are
 * turned here, one rule each:
 *
 * - `INTEGER` → `BIGINT` (every `*_at` column is milliseconds, past 2^31), `REAL` → `DOUBLE
 *   PRECISION`, `BLOB` → `BYTEA`; SQLite's table options `STRICT` and `WITHOUT ROWID` are dropped
 *   (PostgreSQL's columns are always typed, and it has no rowid).
 * - `INSERT OR IGNORE` → `INSERT … ON CONFLICT DO NOTHING`.
 * - The six triggers that bump `agents_version` after any write to `agents` or `agent_runs`
 *   (the agents list cache, store/runs/agents.ts) become one PL/pgSQL function and two statement
 *   triggers. The function bumps one of 1024 slots (`agents_version:<n>`, chosen by the
 *   connection's backend process), and the version is their sum with the base row
 *   (`agentsVersion`): one counter row would be a lock that every run of every organization waits
 *   for until the holder commits (src/docs/notes/postgres.md#writes-without-a-global-lock).
 */

const AGENTS_VERSION_TRIGGER = /^CREATE TRIGGER IF NOT EXISTS (agents|agent_runs)_version_\w+ AFTER/;

/** The trigger function (also migration 20's, which replaces the one-row version of it). */
export const BUMP_FUNCTION = `CREATE OR REPLACE FUNCTION crew_bump_agents_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO schema_meta (key, value) VALUES ('agents_version:' || (pg_backend_pid() % 1024), '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(schema_meta.value AS BIGINT) + 1 AS TEXT);
  RETURN NULL;
END $$`;

const bumpTrigger = (table: string) =>
  `CREATE OR REPLACE TRIGGER ${table}_version AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION crew_bump_agents_version()`;

/** One statement of schema.sql (as `splitSql` gives them) in PostgreSQL's words; the triggers are made once, by `postgresTriggers`. */
export function postgresStatement(statement: string): string | null {
  if (AGENTS_VERSION_TRIGGER.test(statement)) return null;
  if (/^CREATE TRIGGER/i.test(statement)) throw new Error(`schema.sql has a trigger PostgreSQL's schema does not know: ${statement}`);
  let sql = statement
    .replace(/\)\s*STRICT\s*,\s*WITHOUT ROWID\s*$/i, ")")
    .replace(/\)\s*WITHOUT ROWID\s*,\s*STRICT\s*$/i, ")")
    .replace(/\)\s*STRICT\s*$/i, ")")
    .replace(/\)\s*WITHOUT ROWID\s*$/i, ")")
    .replace(/\bINTEGER\b/g, "BIGINT")
    .replace(/\bREAL\b/g, "DOUBLE PRECISION")
    .replace(/\bBLOB\b/g, "BYTEA");
  if (/^INSERT OR IGNORE INTO/i.test(sql)) sql = `${sql.replace(/^INSERT OR IGNORE INTO/i, "INSERT INTO")} ON CONFLICT DO NOTHING`;
  return sql;
}

/** The schema's statements for PostgreSQL, the agents_version triggers last (they need their tables). */
export function postgresSchema(statements: readonly string[]): string[] {
  const converted = statements.map(postgresStatement).filter((s): s is string => s !== null);
  return [...converted, BUMP_FUNCTION, bumpTrigger("agents"), bumpTrigger("agent_runs")];
}
