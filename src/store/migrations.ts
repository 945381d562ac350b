/**
 * Schema versions. A fresh database gets `schema.sql` (the current schema, which records its own
 * version); an existing one is brought forward by the ordered steps below, each applied in one
 * batch (a transaction) together with its version bump. To change the schema: edit schema.sql,
 * bump its version line, and append a step here that takes version N-1 to N.
 */
import type { Db } from "./db.ts";

export interface Migration {
  /** The version this step produces. */
  version: number;
  statements: string[];
}

/**
 * Issue 13: user roles (owner/member), deactivation, and one-time sign-in links. The first user of each
 * organization completed setup (or was created first by the CLI), so it becomes the owner.
 */
export const ISSUE13_SCHEMA: string[] = [
  "ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member'))",
  "ALTER TABLE users ADD COLUMN deactivated_at INTEGER",
  `UPDATE users SET role = 'owner' WHERE id IN (
     SELECT (SELECT u.id FROM users u WHERE u.org_id = o.id ORDER BY u.created_at, u.id LIMIT 1) FROM organizations o)`,
  `CREATE TABLE IF NOT EXISTS sign_in_links (
     token_hash TEXT PRIMARY KEY,
     user_id    TEXT NOT NULL REFERENCES users (id),
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at    INTEGER
   ) STRICT`,
];

/** Steps from version 1 onwards. */
export const migrations: Migration[] = [{ version: 2, statements: ISSUE13_SCHEMA }];

export const SCHEMA_VERSION = 2;

/** Splits schema.sql into statements (it holds no triggers, so `;` at a line end ends one). */
export function splitSql(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) =>
      s
        .split("\n")
        .filter((line) => !line.trim().startsWith("--"))
        .join("\n")
        .trim(),
    )
    .filter(Boolean);
}

async function currentVersion(db: Db): Promise<number> {
  const table = await db.one<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_meta'");
  if (!table) return 0;
  const row = await db.one<{ value: string }>("SELECT value FROM schema_meta WHERE key = 'version'");
  return row ? Number(row.value) : 0;
}

/**
 * Applies the schema or the pending migrations; returns the version the database is now at.
 * Each step is one batch (a transaction) that first records `migration:N` in schema_meta: when
 * two processes upgrade one database at once, the second's record collides, its batch rolls
 * back whole, and the step runs exactly once. (Batches, not interactive transactions: the local
 * driver runs statements synchronously, so an open transaction in one process stalls every other
 * connection of that process until the busy timeout.)
 */
export async function migrate(db: Db, schemaSql: string, steps: Migration[] = migrations): Promise<number> {
  if ((await currentVersion(db)) === 0) {
    await db.batch(splitSql(schemaSql), "write");
  }
  for (const step of steps) {
    if (step.version <= (await currentVersion(db))) continue;
    try {
      await db.batch(
        [
          { sql: "INSERT INTO schema_meta (key, value) VALUES (?, ?)", args: [`migration:${step.version}`, new Date().toISOString()] },
          ...step.statements,
          { sql: "UPDATE schema_meta SET value = ? WHERE key = 'version'", args: [String(step.version)] },
        ],
        "write",
      );
    } catch (error) {
      if (!String(error).includes("UNIQUE constraint failed: schema_meta.key")) throw error;
    }
  }
  return currentVersion(db);
}
