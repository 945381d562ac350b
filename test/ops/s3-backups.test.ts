/**
 * Backups off the machine (src/docs/notes/operating.md#backups-off-the-machine), against a local
 * S3-compatible server (s3rver): a scheduled backup is uploaded after its integrity check and the
 * bucket keeps the newest BACKUP_KEEP; `crew backup --to s3://…` and `crew restore --from s3://…`;
 * a restore from the bucket is refused while a server runs on the database.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBackupPass } from "../../src/background/backups.ts";
import { backupFiles } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { openBucket } from "../../src/integrations/backups/bucket.ts";
import { checkBackup, isBackupFileName } from "../../src/store/backup.ts";
import { openStore } from "../../src/store/db.ts";
import { type DatabaseFile, databaseFileWithKey, runCliInProcess } from "../helpers/cli.ts";
import { type LocalS3, startS3 } from "../helpers/s3.ts";
import { startServer, type TestServer, tempDir } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

const BUCKET = "crew-backups";
let s3: LocalS3;
const scratch = tempDir("crew-s3-scratch-");

const bucket = () => openBucket(BUCKET, loadConfig({ DATABASE_URL: "file:unused.db", ...s3.env }).s3);
const keysUnder = async (prefix: string) => {
  const b = bucket();
  try {
    return (await b.list(prefix, isBackupFileName)).map((o) => o.key);
  } finally {
    b.close();
  }
};
const download = async (key: string, name: string) => {
  const b = bucket();
  try {
    const file = join(scratch.dir, name);
    await b.download(key, file);
    return file;
  } finally {
    b.close();
  }
};

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
});
afterAll(async () => {
  await s3?.close();
  scratch.cleanup();
});

describe("scheduled backups to a bucket", () => {
  const local = tempDir("crew-s3-local-");
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      env: { ...s3.env, BACKUP_DIR: local.dir, BACKUP_KEEP: "2", BACKUP_S3_URL: `s3://${BUCKET}/nightly`, BACKUP_SCHEDULE: "0 3 * * *" },
    });
  });
  afterAll(async () => {
    await s.close();
    local.cleanup();
  });

  it("uploads each pass's checked backup, keeps the newest BACKUP_KEEP in the bucket, and the object passes integrity_check", async () => {
    const uploaded: string[] = [];
    for (let i = 0; i < 3; i++) {
      const pass = await runBackupPass(s.deps, backupFiles, "leader");
      expect(pass.uploaded).toMatch(new RegExp(`^s3://${BUCKET}/nightly/crew-\\d{8}T\\d{6}Z\\.db$`));
      uploaded.push(pass.uploaded ?? "");
      s.clock.advance(61_000);
    }
    const keys = await keysUnder("nightly/");
    expect(keys.map((k) => `s3://${BUCKET}/${k}`)).toEqual(uploaded.slice(1));
    const file = await download(keys.at(-1) as string, "from-bucket.db");
    expect(checkBackup(file).schemaVersion).toBeGreaterThan(0);
    // The audit row says where it went.
    const audit = await s.db.one<{ detail: string }>(
      "SELECT detail FROM audit_events WHERE event = 'backup.written' ORDER BY at DESC, id DESC LIMIT 1",
    );
    expect(JSON.parse(audit?.detail ?? "{}")).toMatchObject({ uploaded: uploaded[2], removedFromBucket: 1 });
  });

  it("refuses a bad BACKUP_S3_URL, BACKUP_S3_URL with PostgreSQL, and one key without the other, at start-up", () => {
    const base = { DATABASE_URL: "file:crew.db", ...s3.env };
    expect(() => loadConfig({ ...base, BACKUP_S3_URL: "s3://A_bucket/x" })).toThrow(
      /BACKUP_S3_URL: s3:\/\/A_bucket\/x: "A_bucket" is not an S3 bucket name/,
    );
    expect(() => loadConfig({ ...base, BACKUP_S3_URL: "https://bucket/x" })).toThrow("BACKUP_S3_URL must be s3://bucket/prefix");
    expect(() =>
      loadConfig({ ...base, DATABASE_URL: "postgres://crew@db/crew", CREW_SECRET: "x".repeat(32), BACKUP_S3_URL: `s3://${BUCKET}/x` }),
    ).toThrow(/^BACKUP_S3_URL is for SQLite databases/);
    expect(() => loadConfig({ ...base, AWS_SECRET_ACCESS_KEY: "" })).toThrow(
      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set together",
    );
    // Only the bucket: written first into backups/ beside the database, as `crew backup` does.
    expect(loadConfig({ ...base, DATABASE_URL: "file:/var/lib/crew/crew.db", BACKUP_S3_URL: `s3://${BUCKET}/x` }).backupDir).toBe(
      "/var/lib/crew/backups",
    );
  });
});

describe("crew backup --to s3://… and crew restore --from s3://…", () => {
  let file: DatabaseFile;
  beforeAll(async () => {
    file = await databaseFileWithKey("s3-cli");
  });
  afterAll(() => file?.cleanup());

  it("backs up to a prefix, restores the newest backup under it, and restores an exact key", async () => {
    const env = { ...file.env, ...s3.env };
    const made = await runCliInProcess(["backup", "--to", `s3://${BUCKET}/manual/`], env);
    expect(made.stderr).toContain("Wrote a backup of");
    expect(made.code).toBe(0);
    const url = made.stdout.trim();
    expect(url).toMatch(new RegExp(`^s3://${BUCKET}/manual/crew-\\d{8}T\\d{6}Z\\.db$`));
    expect(await keysUnder("manual/")).toEqual([url.slice(`s3://${BUCKET}/`.length)]);
    expect(checkBackup(await download(url.slice(`s3://${BUCKET}/`.length), "manual.db")).users).toBe(1);

    // A user added after the backup is gone once it is restored.
    const db = await openStore({ url: file.dbUrl });
    await db.run("UPDATE users SET name = 'Changed after the backup'");
    db.close();
    const restored = await runCliInProcess(["restore", "--from", `s3://${BUCKET}/manual`], env);
    expect(restored.stderr).not.toContain("crew restore:");
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`Restored ${url} (schema version`);
    const after = await openStore({ url: file.dbUrl });
    expect((await after.one<{ name: string }>("SELECT name FROM users"))?.name).not.toBe("Changed after the backup");
    after.close();
    // Nothing left behind beside the database but the kept copy.
    const folder = file.dbUrl.slice("file:".length, file.dbUrl.lastIndexOf("/"));
    expect(existsSync(join(folder, "backups"))).toBe(false);

    const exact = await runCliInProcess(["restore", "--from", url], env);
    expect(exact.stderr).not.toContain("crew restore:");
    expect(exact.code).toBe(0);
    const missing = await runCliInProcess(["restore", "--from", `s3://${BUCKET}/nothing-here/`], env);
    expect(missing).toMatchObject({ code: 1, stderr: `crew restore: s3://${BUCKET}/nothing-here/ holds no backup (crew-….db)\n` });
    const both = await runCliInProcess(["restore", "x.db", "--from", url], env);
    expect(both.code).toBe(2);
  });

  it("refuses a restore from the bucket while a server runs on the database", async () => {
    const env = { ...file.env, ...s3.env };
    const server: SpawnedServer = await spawnServer({ ...env, CREW_SECRET: "s3-restore-secret-s3-restore-secret-0" });
    try {
      const refused = await runCliInProcess(["restore", "--from", `s3://${BUCKET}/manual/`], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^crew restore: refused: a server leads the scheduler on this database \(.+\); stop it first, or add --force\n$/,
      );
    } finally {
      await server.stop();
    }
  });
});
