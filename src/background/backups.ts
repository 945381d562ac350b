/**
 * Scheduled backups (src/docs/notes/operating.md): with BACKUP_DIR set, one server — whoever takes the `backups`
 * lease for the slot — writes `crew-<time>.db` on BACKUP_SCHEDULE (cron, in the default
 * organization's time zone) and deletes the oldest beyond BACKUP_KEEP. The files are written by
 * the store (VACUUM INTO); listing and deleting them is the runtime's, passed in by boot. With
 * BACKUP_S3_URL the file is then checked (`integrity_check`) and uploaded, and the bucket keeps
 * the newest BACKUP_KEEP too (src/docs/notes/operating.md#backups-off-the-machine).
 */
import { Cron } from "croner";
import type { AppDeps, BackgroundTask } from "../deps.ts";
import { MINUTE } from "../lib/clock.ts";
import { randomSecret } from "../lib/random.ts";
import { asPrefix, s3Url } from "../lib/s3-address.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { backupFileName, checkBackup, isBackupFileName, SECRET_NOTE, writeBackup } from "../store/backup.ts";
import { takeLease } from "../store/leases/leases.ts";
import { getDefaultOrg } from "../store/orgs/orgs.ts";

/** The file operations a backup pass needs (node:fs in boot.ts). */
export interface BackupFiles {
  /** Names and sizes of the files in `dir` (none when it does not exist). */
  list(dir: string): Promise<{ name: string; bytes: number }[]>;
  remove(path: string): Promise<void>;
  /** Creates the folder, private to its owner (0700). */
  makeDir(dir: string): Promise<void>;
  /** Creates an empty file private to its owner (0600) for the backup to be written into. */
  reserve(file: string): Promise<void>;
}

export const BACKUP_LEASE = "backups";
const LEASE_TTL = 10 * MINUTE;

export interface BackupPass {
  written: string | null;
  removed: string[];
  /** With BACKUP_S3_URL: the object's s3:// URL, and the old objects deleted. */
  uploaded?: string;
  removedFromBucket?: string[];
}

const joinPath = (dir: string, name: string) => `${dir.replace(/\/+$/, "")}/${name}`;

/**
 * One scheduled backup: take the lease (one writer across processes), write the file, rotate.
 * Resolves to what it did; `written` is null when another process holds the lease.
 */
export async function runBackupPass(deps: AppDeps, files: BackupFiles, holder: string): Promise<BackupPass> {
  const { db, config, clock, log } = deps;
  const dir = config.backupDir;
  if (!dir) return { written: null, removed: [] };
  const now = clock.now();
  if (!(await takeLease(db, BACKUP_LEASE, holder, now, now + LEASE_TTL))) return { written: null, removed: [] };
  await files.makeDir(dir);
  const file = joinPath(dir, backupFileName(now));
  await files.reserve(file);
  await writeBackup(db, file);
  const listed = (await files.list(dir)).filter((f) => isBackupFileName(f.name)).sort((x, y) => x.name.localeCompare(y.name));
  const bytes = listed.find((f) => joinPath(dir, f.name) === file)?.bytes ?? 0;
  const stale = listed.slice(0, Math.max(0, listed.length - config.backupKeep)).map((f) => joinPath(dir, f.name));
  for (const path of stale) await files.remove(path);
  const offsite = config.backupS3 ? await upload(deps, file) : null;
  const org = await getDefaultOrg(db);
  const detail = {
    bytes,
    removed: stale.length,
    ...(offsite ? { uploaded: offsite.uploaded, removedFromBucket: offsite.removedFromBucket.length } : {}),
  };
  if (org) await recordAudit(db, org.id, "backup.written", { kind: "system" }, now, file, detail);
  log.info("backup written", { file, ...detail, note: SECRET_NOTE });
  return { written: file, removed: stale, ...offsite };
}

/** Checks the written file, uploads it beside the earlier ones, and keeps the newest BACKUP_KEEP in the bucket. */
async function upload(deps: AppDeps, file: string): Promise<{ uploaded: string; removedFromBucket: string[] }> {
  const { config } = deps;
  const address = config.backupS3;
  if (!address) throw new Error("no BACKUP_S3_URL");
  // A damaged copy is not sent off to replace a good one: the check comes first.
  checkBackup(file);
  // Loaded only when used: the S3 client is large, and most installs never upload.
  const { openBucket } = await import("../integrations/backups/bucket.ts");
  const prefix = asPrefix(address.key);
  const key = `${prefix}${file.slice(file.lastIndexOf("/") + 1)}`;
  const bucket = openBucket(address.bucket, config.s3);
  try {
    await bucket.upload(file, key);
    const listed = await bucket.list(prefix, isBackupFileName);
    const stale = listed.slice(0, Math.max(0, listed.length - config.backupKeep)).map((o) => o.key);
    if (stale.length > 0) await bucket.remove(stale);
    return {
      uploaded: s3Url({ bucket: address.bucket, key }),
      removedFromBucket: stale.map((k) => s3Url({ bucket: address.bucket, key: k })),
    };
  } finally {
    bucket.close();
  }
}

/** The task: sleeps until the next slot of BACKUP_SCHEDULE, runs a pass, and again. */
export function scheduledBackupsTask(files: BackupFiles): BackgroundTask {
  return {
    name: "backups",
    start(deps) {
      if (!deps.config.backupDir) return { async stop() {} }; // also set, beside the database, when only BACKUP_S3_URL is
      const holder = `backups-${randomSecret(8)}`;
      let running: Promise<unknown> = Promise.resolve();
      const cron = new Cron(deps.config.backupSchedule, { timezone: deps.config.defaultTimeZone }, () => {
        running = runBackupPass(deps, files, holder).catch((error) =>
          deps.log.error("backup failed", { error: error instanceof Error ? error.message : String(error) }),
        );
      });
      return {
        async stop() {
          cron.stop();
          await running;
        },
      };
    },
  };
}
