/**
 * Backups and restore (src/docs/notes/operating.md#backups). A backup is `VACUUM INTO` a new file: SQLite writes it from one
 * read transaction, so it is a consistent snapshot that holds every commit made before it started
 * (WAL included), while writers carry on. A plain copy of `crew.db` misses what still sits in
 * `crew.db-wal`. A restore first checks the candidate file (a SQLite file, `integrity_check` ok,
 * a Crew schema this release can run), then replaces the database file and drops its WAL.
 */
import Database from "libsql";
import type { Db } from "./db.ts";
import { SCHEMA_VERSION, splitSql } from "./migrations.ts";

/** Named in every backup message: without this file, stored integration credentials cannot be decrypted. */
export const SECRET_NOTE =
  "keep crew-secret (beside the database, or CREW_SECRET) with your backups: without it the stored integration credentials cannot be decrypted";

/** A backup or restore that cannot be done; the message is one line for the CLI and the log. */
export class BackupError extends Error {}

/** The path of a local (`file:`) database, or null for a remote or in-memory one. */
export function localPath(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith("file:")) return null;
  let path = databaseUrl.slice("file:".length).split("?")[0] ?? "";
  if (path.startsWith("//")) path = path.slice(2);
  return path === "" || path.includes(":memory:") ? null : path;
}

/** Writes a consistent copy of the open database to `file` (which must not exist yet). */
export async function writeBackup(db: Db, file: string): Promise<void> {
  try {
    await db.execute({ sql: "VACUUM INTO ?", args: [file] });
  } catch (error) {
    throw new BackupError(`cannot write the backup ${file}: ${firstLine(error)}`);
  }
}

export interface CheckedBackup {
  schemaVersion: number;
  users: number;
}

/**
 * Opens `file` read-only and checks it is a Crew database this release can run: readable as
 * SQLite, `PRAGMA integrity_check` answers ok, a schema version no newer than this release's,
 * and, given this release's `schema.sql`, a schema that is only what Crew wrote (`schemaDifference`).
 */
export function checkBackup(file: string, knownVersion = SCHEMA_VERSION, schemaSql?: string): CheckedBackup {
  let conn: Database.Database;
  try {
    conn = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} cannot be opened: ${firstLine(error)}`);
  }
  try {
    let integrity: string;
    try {
      const rows = conn.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
      integrity = rows.map((r) => r.integrity_check).join("; ");
    } catch (error) {
      throw new BackupError(`${file} is not a Crew database (${firstLine(error)})`);
    }
    if (integrity !== "ok") throw new BackupError(`${file} fails the integrity check: ${integrity.slice(0, 200)}`);
    const meta = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_meta'").get();
    if (!meta) throw new BackupError(`${file} is not a Crew database (no schema_meta table)`);
    const row = conn.prepare("SELECT value FROM schema_meta WHERE key = 'version'").get() as { value: string } | undefined;
    const schemaVersion = Number(row?.value ?? 0);
    if (!Number.isInteger(schemaVersion) || schemaVersion < 1) throw new BackupError(`${file} has no schema version`);
    if (schemaVersion > knownVersion) {
      throw new BackupError(
        `${file} is at schema version ${schemaVersion}, newer than this release's ${knownVersion}: restore it with the newer Crew release`,
      );
    }
    if (schemaSql !== undefined) {
      const difference = schemaDifference(objectsOf(conn), expectedObjects(schemaSql), schemaVersion === knownVersion);
      if (difference) throw new BackupError(`${file} is not a database Crew wrote at schema version ${schemaVersion}: ${difference}`);
    }
    const users = (conn.prepare("SELECT count(*) AS n FROM users").get() as { n: number }).n;
    return { schemaVersion, users };
  } finally {
    conn.close();
  }
}

interface SchemaObject {
  type: string;
  name: string;
  sql: string;
}

/** Tables, indexes, triggers and views, with their SQL in one spacing (SQLite keeps it as written). */
function objectsOf(conn: Database.Database): SchemaObject[] {
  const rows = conn.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as {
    type: string;
    name: string;
    sql: string | null;
  }[];
  return rows.map((r) => ({ type: r.type, name: r.name, sql: (r.sql ?? "").replace(/\s+/g, " ").trim() }));
}

/** The objects of a fresh database at this release's schema. */
function expectedObjects(schemaSql: string): SchemaObject[] {
  const fresh = new Database(":memory:");
  try {
    for (const statement of splitSql(schemaSql)) fresh.exec(statement);
    return objectsOf(fresh);
  } finally {
    fresh.close();
  }
}

/**
 * The first way a file's schema differs from what Crew writes, or null. A file at this release's
 * version must hold exactly the objects of `schema.sql`. An older one is brought forward by the
 * migrations at start, so only what runs by itself is judged: each trigger and view must be one of
 * this release's, written the same (a trigger or view of its own would run inside Crew, e.g.
 * promoting a member to owner on the next write).
 */
export function schemaDifference(actual: SchemaObject[], expected: SchemaObject[], sameVersion: boolean): string | null {
  const key = (o: SchemaObject) => `${o.type} ${o.name}`;
  const wanted = new Map(expected.map((o) => [key(o), o]));
  const judged = sameVersion ? actual : actual.filter((o) => o.type === "trigger" || o.type === "view");
  for (const o of judged) {
    const mine = wanted.get(key(o));
    if (!mine) return `unexpected ${key(o)}`;
    // A table's text grows with ALTER TABLE in an upgraded database, so tables are judged by name.
    if (o.type !== "table" && mine.sql !== o.sql) return `${key(o)} is not defined as Crew defines it`;
  }
  if (sameVersion) {
    const present = new Set(actual.map(key));
    for (const o of expected) if (!present.has(key(o))) return `missing ${key(o)}`;
  }
  return null;
}

// The CLI's backup command asks whether a server leads the scheduler.
export { activeLeader } from "./leases/leases.ts";

/** Backup file names sort by time: `crew-20261124T030000Z.db`. */
export function backupFileName(now: number): string {
  return `crew-${new Date(now)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}.db`;
}

export const isBackupFileName = (name: string) => /^crew-\d{8}T\d{6}Z\.db$/.test(name);

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
