/**
 * `crew backup` and `crew restore` (src/docs/notes/operating.md#backups). The backup is written through the running
 * database (VACUUM INTO, src/store/backup.ts), so it is consistent while a server writes. The
 * restore checks the file first, refuses while a server leads the scheduler on this database
 * (unless --force), keeps the replaced database beside it and swaps the files. Neither migrates
 * (a backup is the database as it is; the server upgrades at start). Every message names the secret file.
 * On PostgreSQL both refuse and name pg_dump and pg_restore instead.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { LEASE_NAME } from "../agents/scheduler.ts";
import { privateDir, privateEmptyFile, readSchema, readSecretFile } from "../boot.ts";
import { type Config, isPostgresUrl, loadConfig, secretsFromFiles } from "../config.ts";
import { requireExistingDatabase } from "../environment.ts";
import { systemClock } from "../lib/clock.ts";
import { activeLeader, BackupError, backupFileName, checkBackup, localPath, SECRET_NOTE, writeBackup } from "../store/backup.ts";
import { type Db, openStore } from "../store/db.ts";
import { type CliIo, CommandError, type Env, type Flags, printJson, UsageError, withStore } from "./support.ts";

/** BACKUP_DIR, else a `backups` folder beside the database file. */
export function defaultBackupDir(config: Config, databasePath: string): string {
  return config.backupDir ?? join(dirname(databasePath), "backups");
}

function localDatabase(config: Config): string {
  const path = localPath(config.databaseUrl);
  if (!path) {
    throw new CommandError(
      "backup and restore work on a local database file (DATABASE_URL=file:…); for a libSQL server use its own backups",
    );
  }
  return path;
}

/**
 * PostgreSQL is backed up with its own tools (src/docs/notes/postgres.md#backups): pg_dump takes a
 * consistent snapshot while Crew writes, as VACUUM INTO does for the SQLite file. Checked before
 * the configuration is loaded, so the advice comes even where CREW_SECRET is not set.
 */
function refusePostgres(env: Env, command: "backup" | "restore"): void {
  const url = (secretsFromFiles(env, readSecretFile).DATABASE_URL ?? "").trim();
  if (!isPostgresUrl(url)) return;
  const dump = 'pg_dump --format=custom --file crew.dump "$DATABASE_URL"';
  const restore = 'pg_restore --clean --if-exists --no-owner --dbname "$DATABASE_URL" crew.dump';
  throw new CommandError(
    command === "backup"
      ? `DATABASE_URL is PostgreSQL: back it up with PostgreSQL's own tools, e.g. ${dump} (restore with ${restore}); keep CREW_SECRET with the dump: without it the stored integration credentials cannot be decrypted`
      : `DATABASE_URL is PostgreSQL: restore a pg_dump file with PostgreSQL's own tools, e.g. ${restore} (made with ${dump}), with every Crew process stopped; the processes need the CREW_SECRET the dump was written with`,
  );
}

export async function backupFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  refusePostgres(env, "backup");
  const config = loadConfig(env, readSecretFile);
  const path = localDatabase(config);
  requireExistingDatabase(config, env); // before a backups folder is made beside it
  const now = systemClock.now();
  const file = resolve(
    typeof flags.to === "string" && flags.to.trim() ? flags.to.trim() : join(defaultBackupDir(config, path), backupFileName(now)),
  );
  if (existsSync(file)) throw new CommandError(`${file} exists already; choose another --to`);
  // The default folder is Crew's own and made private; a folder named with --to is the operator's.
  if (typeof flags.to === "string" && flags.to.trim()) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  else privateDir(dirname(file));
  return withStore(
    env,
    async (db, org) => {
      try {
        privateEmptyFile(file);
        await writeBackup(db, file);
      } catch (error) {
        if (error instanceof BackupError) throw new CommandError(error.message);
        throw error;
      }
      const bytes = statSync(file).size;
      // Any version: the copy is of the database as it is, also one a newer release wrote.
      const { schemaVersion } = checkBackup(file, Number.MAX_SAFE_INTEGER);
      await auditAsIs(db, org.id, "backup.written", file, { bytes });
      if (flags.json) printJson(io, { file, bytes, schemaVersion, secretNote: SECRET_NOTE });
      else {
        io.out(`${file}\n`);
        io.err(`Wrote a backup of ${path} (${(bytes / 1024).toFixed(0)} KiB, schema version ${schemaVersion}); ${SECRET_NOTE}.\n`);
      }
      return 0;
    },
    undefined,
    { asIs: true },
  );
}

/** Records the event when the database's schema has the audit log (a database older than it is copied all the same). */
async function auditAsIs(
  db: Db,
  orgId: string,
  event: "backup.written" | "backup.restored",
  file: string,
  detail: Record<string, unknown>,
) {
  const { recordAudit } = await import("../store/audit/audit.ts");
  const audited = await db.one("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'");
  if (audited) await recordAudit(db, orgId, event, { kind: "cli" }, systemClock.now(), file, detail);
}

export async function restoreFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  refusePostgres(env, "restore");
  if (typeof flags.file !== "string" || flags.file.trim() === "") throw new UsageError("name the backup FILE to restore");
  const config = loadConfig(env, readSecretFile);
  const path = resolve(localDatabase(config));
  const file = resolve(flags.file);
  if (!existsSync(file)) throw new CommandError(`${file} does not exist`);
  if (file === path) throw new CommandError(`${file} is the database itself`);
  let checked: ReturnType<typeof checkBackup>;
  try {
    checked = checkBackup(file, undefined, readSchema());
  } catch (error) {
    if (error instanceof BackupError) throw new CommandError(`refused: ${error.message}`);
    throw error;
  }

  const now = systemClock.now();
  let kept: string | null = null;
  if (existsSync(path)) {
    const current = await openStore({ url: `file:${path}` });
    try {
      const leader = await activeLeader(current, LEASE_NAME, now).catch(() => null);
      if (leader && !flags.force) {
        throw new CommandError(`refused: a server leads the scheduler on this database (${leader}); stop it first, or add --force`);
      }
      // The database being replaced is kept, written the same consistent way as a backup.
      kept = `${path}.before-restore-${backupFileName(now).slice("crew-".length, -".db".length)}`;
      privateEmptyFile(kept);
      await writeBackup(current, kept);
    } finally {
      current.close();
    }
  }
  // The new file goes in under a temporary name, then replaces the database in one rename; the
  // old WAL and shared-memory files must go first (they belong to the old file).
  const incoming = `${path}.restoring`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  copyFileSync(file, incoming);
  chmodSync(incoming, 0o600);
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  renameSync(incoming, path);

  // Opened as it is: the server applies any migrations an older backup needs when it starts.
  return withStore(
    env,
    async (db, org) => {
      await auditAsIs(db, org.id, "backup.restored", file, { schemaVersion: checked.schemaVersion, forced: Boolean(flags.force) });
      io.out(
        `Restored ${file} (schema version ${checked.schemaVersion}, ${checked.users} users) into ${path}` +
          `${kept ? `; the replaced database is kept as ${kept}` : ""}.\n`,
      );
      io.err(`The restored database needs the crew-secret it was written with; ${SECRET_NOTE}.\n`);
      return 0;
    },
    undefined,
    { asIs: true },
  );
}
