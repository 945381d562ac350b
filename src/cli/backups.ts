/**
 * `crew backup` and `crew restore` (src/docs/notes/operating.md#backups). The backup is written through the running
 * database (VACUUM INTO, src/store/backup.ts), so it is consistent while a server writes. The
 * restore checks the file first, refuses while a server leads the scheduler on this database
 * (unless --force), keeps the replaced database beside it and swaps the files. Neither migrates
 * (a backup is the database as it is; the server upgrades at start). Every message names the secret file.
 * On PostgreSQL both refuse and name pg_dump and pg_restore instead. `--to s3://…` and
 * `--from s3://…` put the backup in a bucket and take it from there
 * (src/docs/notes/operating.md#backups-off-the-machine): written and checked locally first, then uploaded;
 * downloaded beside the database, then restored as a local file is.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { LEASE_NAME } from "../agents/scheduler.ts";
import { privateDir, privateEmptyFile, readSchema, readSecretFile } from "../boot.ts";
import { type Config, isPostgresUrl, loadConfig, secretsFromFiles } from "../config.ts";
import { requireExistingDatabase } from "../environment.ts";
import type { Bucket } from "../integrations/backups/bucket.ts";
import { systemClock } from "../lib/clock.ts";
import { asPrefix, parseS3Url, type S3Address, s3Url } from "../lib/s3-address.ts";
import {
  activeLeader,
  BackupError,
  backupFileName,
  checkBackup,
  isBackupFileName,
  localPath,
  SECRET_NOTE,
  writeBackup,
} from "../store/backup.ts";
import type { SqlRow } from "../store/columns.ts";
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
  const bucketAddress = s3Flag(flags.to, "--to");
  // To a bucket: written and checked in a private scratch folder first, uploaded, then removed.
  const upload = bucketAddress && {
    bucket: bucketAddress.bucket,
    key: namesOneBackup(bucketAddress) ? bucketAddress.key : `${asPrefix(bucketAddress.key)}${backupFileName(now)}`,
  };
  const scratch = upload ? mkdtempSync(join(tmpdir(), "crew-backup-")) : null;
  const file = scratch
    ? join(scratch, backupFileName(now))
    : resolve(
        typeof flags.to === "string" && flags.to.trim() ? flags.to.trim() : join(defaultBackupDir(config, path), backupFileName(now)),
      );
  if (!scratch) {
    if (existsSync(file)) throw new CommandError(`${file} exists already; choose another --to`);
    // The default folder is Crew's own and made private; a folder named with --to is the operator's.
    if (typeof flags.to === "string" && flags.to.trim()) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    else privateDir(dirname(file));
  }
  try {
    return await withStore(
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
        // Any version: the copy is of the database as it is, also one a newer release wrote. Checked before an upload too.
        const { schemaVersion } = checkBackup(file, Number.MAX_SAFE_INTEGER);
        if (upload) await withBucket(upload.bucket, config, (bucket) => bucket.upload(file, upload.key));
        const written = upload ? s3Url(upload) : file;
        await auditAsIs(db, org.id, "backup.written", written, { bytes });
        if (flags.json) printJson(io, { file: written, bytes, schemaVersion, secretNote: SECRET_NOTE });
        else {
          io.out(`${written}\n`);
          io.err(`Wrote a backup of ${path} (${(bytes / 1024).toFixed(0)} KiB, schema version ${schemaVersion}); ${SECRET_NOTE}.\n`);
        }
        return 0;
      },
      undefined,
      { asIs: true },
    );
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The s3:// URL a flag names, or null for a local path; a bad s3:// URL is a usage error. */
function s3Flag(value: unknown, flag: string): S3Address | null {
  if (typeof value !== "string") return null;
  const address = parseS3Url(value.trim());
  if (address instanceof Error) throw new UsageError(`${flag}: ${address.message}`);
  return address;
}

/** A key naming one backup (`…/crew-<time>.db`), else a prefix the backup goes under or is taken from. */
const namesOneBackup = (address: S3Address) => address.key.endsWith(".db");

/** Runs `work` on the bucket, its failures as one-line command errors. */
async function withBucket<T>(name: string, config: Config, work: (bucket: Bucket) => Promise<T>): Promise<T> {
  // Loaded only for an s3:// URL: the S3 client is large.
  const { BucketError, openBucket } = await import("../integrations/backups/bucket.ts");
  const bucket = openBucket(name, config.s3);
  try {
    return await work(bucket);
  } catch (error) {
    if (error instanceof BucketError) throw new CommandError(error.message);
    throw error;
  } finally {
    bucket.close();
  }
}

/** The backup an s3:// URL names: that object, or the newest backup under the prefix. */
async function downloadBackup(address: S3Address, config: Config, file: string): Promise<string> {
  return withBucket(address.bucket, config, async (bucket) => {
    let key = address.key;
    if (!namesOneBackup(address)) {
      const newest = (await bucket.list(asPrefix(address.key), isBackupFileName)).at(-1);
      if (!newest) throw new CommandError(`${s3Url(address)} holds no backup (crew-….db)`);
      key = newest.key;
    }
    await bucket.download(key, file);
    return s3Url({ bucket: address.bucket, key });
  });
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
  if (await auditTable(db)) await recordAudit(db, orgId, event, { kind: "cli" }, systemClock.now(), file, detail);
}

const HISTORY_COLUMNS = "id, org_id, at, event, actor_kind, actor_id, subject, detail";
const auditTable = (db: Db) => db.one("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'");

/** The replaced database's record of backups written and restored (none before the audit log existed). */
async function backupHistory(db: Db): Promise<SqlRow[]> {
  if (!(await auditTable(db))) return [];
  return db.all<SqlRow>(`SELECT ${HISTORY_COLUMNS} FROM audit_events WHERE event IN ('backup.written', 'backup.restored')`);
}

/**
 * A restore brings the database back to the backup's moment, but not the list of backups: those
 * written after it (the one being restored among them) and earlier restores still exist, so their
 * audit entries are carried into the restored database (src/docs/notes/operating.md#backups).
 */
async function keepBackupHistory(db: Db, rows: SqlRow[]): Promise<void> {
  if (rows.length === 0 || !(await auditTable(db))) return;
  const columns = HISTORY_COLUMNS.split(", ");
  await db.batch(
    rows.map((row) => ({
      sql: `INSERT OR IGNORE INTO audit_events (${HISTORY_COLUMNS}) VALUES (${columns.map(() => "?").join(", ")})`,
      args: columns.map((c) => (row[c] ?? null) as string | number | null),
    })),
  );
}

export async function restoreFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  refusePostgres(env, "restore");
  const from = s3Flag(flags.from, "--from");
  const named = typeof flags.file === "string" && flags.file.trim() !== "";
  if (from && named) throw new UsageError("name the backup FILE or --from s3://…, not both");
  if (!from && !named) throw new UsageError("name the backup FILE to restore, or --from s3://…");
  const config = loadConfig(env, readSecretFile);
  const path = resolve(localDatabase(config));
  if (!from) {
    const file = resolve(flags.file as string);
    if (!existsSync(file)) throw new CommandError(`${file} does not exist`);
    if (file === path) throw new CommandError(`${file} is the database itself`);
    return restoreFile(file, file, path, flags, env, io);
  }
  // Downloaded beside the database (one file system: the copy into place is local), then restored as a file is.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const scratch = mkdtempSync(join(dirname(path), ".crew-restore-"));
  try {
    const file = join(scratch, "backup.db");
    const shown = await downloadBackup(from, config, file);
    return await restoreFile(file, shown, path, flags, env, io);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Restores the local backup `file` (named `shown` in messages and the audit log) into the database at `path`. */
async function restoreFile(file: string, shown: string, path: string, flags: Flags, env: Env, io: CliIo): Promise<number> {
  let checked: ReturnType<typeof checkBackup>;
  try {
    checked = checkBackup(file, undefined, readSchema());
  } catch (error) {
    if (error instanceof BackupError) throw new CommandError(`refused: ${error.message.replaceAll(file, shown)}`);
    throw error;
  }

  const now = systemClock.now();
  let kept: string | null = null;
  let history: SqlRow[] = [];
  if (existsSync(path)) {
    const current = await openStore({ url: `file:${path}` });
    try {
      const leader = await activeLeader(current, LEASE_NAME, now).catch(() => null);
      if (leader && !flags.force) {
        throw new CommandError(`refused: a server leads the scheduler on this database (${leader}); stop it first, or add --force`);
      }
      history = await backupHistory(current);
      // The database being replaced is kept, written the same consistent way as a backup.
      const stamp = `${path}.before-restore-${backupFileName(now).slice("crew-".length, -".db".length)}`;
      // Two restores within one second keep both replaced databases.
      kept = stamp;
      for (let n = 2; existsSync(kept); n++) kept = `${stamp}-${n}`;
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
      await keepBackupHistory(db, history);
      await auditAsIs(db, org.id, "backup.restored", shown, { schemaVersion: checked.schemaVersion, forced: Boolean(flags.force) });
      io.out(
        `Restored ${shown} (schema version ${checked.schemaVersion}, ${checked.users} users) into ${path}` +
          `${kept ? `; the replaced database is kept as ${kept}` : ""}.\n`,
      );
      io.err(`The restored database needs the crew-secret it was written with; ${SECRET_NOTE}.\n`);
      return 0;
    },
    undefined,
    { asIs: true },
  );
}
