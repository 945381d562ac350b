/**
 * Backups and restore (src/docs/notes/operating.md) against real processes and real files: a server in its own
 * process takes writes over HTTP while `crew backup` runs; the backup is restored elsewhere and
 * checked; garbage and newer-schema files are refused with one line; a server refuses to start
 * on a database written by a newer release.
 */
import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { type DatabaseFile, databaseFileWithKey, runCliInProcess, runCrew } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

const other = tempDir("crew-restore-");
let file: DatabaseFile;
let server: SpawnedServer;
const backupFile = () => join(other.dir, "taken-during-writes.db");

beforeAll(async () => {
  file = await databaseFileWithKey("backup");
  server = await spawnServer({
    DATABASE_URL: file.dbUrl,
    CREW_SECRET: "backup-test-secret-backup-test-secret-0",
    RATE_LIMIT_PER_HOUR: "1000000",
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  file?.cleanup();
  other.cleanup();
});

function sqlite(path: string) {
  return new Database(path, { readonly: true });
}

describe("crew backup and crew restore", () => {
  it("backs up during 20 concurrent writes; the restore holds every write acknowledged before the backup started", async () => {
    const acknowledged: string[] = [];
    let stop = false;
    let failures = 0;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const res = await fetch(`${server.url}/api/mcp/actions`, {
          method: "POST",
          headers: { authorization: `Bearer ${file.key}`, "content-type": "application/json" },
          body: JSON.stringify({ title: `writer ${w} write ${i}` }),
        });
        const body = (await res.json()) as { actionId?: string };
        if (res.ok && body.actionId) acknowledged.push(body.actionId);
        else {
          failures += 1;
          stop = true;
        }
      }
    };
    const writers = Array.from({ length: 20 }, (_, w) => writer(w));
    while (acknowledged.length < 40 && !stop) await new Promise((resolve) => setTimeout(resolve, 5));
    const before = [...acknowledged];
    const env = { DATABASE_URL: file.dbUrl, CREW_SECRET: "backup-test-secret-backup-test-secret-0", LOG_LEVEL: "silent" };
    const backup = await runCliInProcess(["backup", "--to", backupFile()], env);
    const duringBackup = acknowledged.length;
    stop = true;
    await Promise.all(writers);
    expect(failures).toBe(0);
    expect(backup.code).toBe(0);
    expect(backup.stdout).toBe(`${backupFile()}\n`);
    expect(backup.stderr).toMatch(/^Wrote a backup of .* KiB, schema version \d+\); keep crew-secret .* cannot be decrypted\.\n$/);
    expect(acknowledged.length).toBeGreaterThan(before.length);
    console.log(`backup: ${before.length} writes acknowledged before it started, ${duringBackup} when it returned`);

    // Restored into a fresh location, as on a new machine.
    const restoredUrl = `file:${join(other.dir, "restored", "crew.db")}`;
    const restore = await runCliInProcess(["restore", backupFile()], { ...env, DATABASE_URL: restoredUrl });
    expect(restore.stderr).toMatch(/crew-secret/);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/^Restored .* \(schema version \d+, 1 users\) into /);
    const restored = sqlite(join(other.dir, "restored", "crew.db"));
    try {
      expect(restored.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
      const ids = new Set((restored.prepare("SELECT id FROM actions").all() as { id: string }[]).map((r) => r.id));
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      const events = restored.prepare("SELECT event FROM audit_events WHERE event LIKE 'backup.%' ORDER BY id").all();
      // The restored file holds the database as it was (no record of its own backup), plus the restore.
      expect(events).toEqual([{ event: "backup.restored" }]);
    } finally {
      restored.close();
    }
  }, 60_000);

  it("refuses to restore over a database while a server leads its scheduler, unless --force", async () => {
    const env = { DATABASE_URL: file.dbUrl, CREW_SECRET: "backup-test-secret-backup-test-secret-0", LOG_LEVEL: "silent" };
    const refused = await runCliInProcess(["restore", backupFile()], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^crew restore: refused: a server leads the scheduler on this database \(.+\); stop it first, or add --force\n$/,
    );
  });

  it("refuses a garbage file and a newer-schema file with one clear line, leaving the database as it was", async () => {
    const target = join(other.dir, "target", "crew.db");
    const env = { DATABASE_URL: `file:${target}`, LOG_LEVEL: "silent" };
    expect((await runCliInProcess(["restore", backupFile()], env)).code).toBe(0);

    const garbage = join(other.dir, "garbage.db");
    writeFileSync(garbage, "this is not a database, just some text that someone saved with a .db name\n".repeat(100));
    const noGarbage = await runCliInProcess(["restore", garbage], env);
    expect(noGarbage.code).toBe(1);
    expect(noGarbage.stderr).toMatch(/^crew restore: refused: .*garbage\.db is not a Crew database \(.+\)\n$/);

    const newer = join(other.dir, "newer.db");
    copyFileSync(backupFile(), newer);
    const conn = new Database(newer);
    conn.prepare("UPDATE schema_meta SET value = ? WHERE key = 'version'").run(String(SCHEMA_VERSION + 7));
    conn.close();
    const noNewer = await runCliInProcess(["restore", newer], env);
    expect(noNewer.code).toBe(1);
    expect(noNewer.stderr).toBe(
      `crew restore: refused: ${newer} is at schema version ${SCHEMA_VERSION + 7}, newer than this release's ${SCHEMA_VERSION}: restore it with the newer Crew release\n`,
    );
    // Still the first restore's content, and only its backup-before-restore beside it.
    const db = sqlite(target);
    expect((db.prepare("SELECT value FROM schema_meta WHERE key = 'version'").get() as { value: string }).value).toBe(
      String(SCHEMA_VERSION),
    );
    db.close();
    expect(existsSync(`${target}.restoring`)).toBe(false);
  });

  it("refuses a file carrying a trigger or a view of its own, naming it, and one missing an index", async () => {
    const target = join(other.dir, "target-schema", "crew.db");
    const env = { DATABASE_URL: `file:${target}`, LOG_LEVEL: "silent" };
    const planted = join(other.dir, "planted-trigger.db");
    copyFileSync(backupFile(), planted);
    const conn = new Database(planted);
    conn.exec("CREATE TRIGGER promote AFTER UPDATE ON users BEGIN UPDATE users SET role = 'owner' WHERE email = 'lite@example.com'; END");
    conn.close();
    const refused = await runCliInProcess(["restore", planted], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `crew restore: refused: ${planted} is not a database Crew wrote at schema version ${SCHEMA_VERSION}: unexpected trigger promote\n`,
    );
    expect(existsSync(target)).toBe(false);

    const viewed = join(other.dir, "planted-view.db");
    copyFileSync(backupFile(), viewed);
    const withView = new Database(viewed);
    withView.exec("CREATE VIEW everyone AS SELECT * FROM users");
    withView.close();
    expect((await runCliInProcess(["restore", viewed], env)).stderr).toContain(": unexpected view everyone\n");

    const trimmed = join(other.dir, "missing-index.db");
    copyFileSync(backupFile(), trimmed);
    const withoutIndex = new Database(trimmed);
    const index = (
      withoutIndex.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").get() as {
        name: string;
      }
    ).name;
    withoutIndex.exec(`DROP INDEX ${index}`);
    withoutIndex.close();
    expect((await runCliInProcess(["restore", trimmed], env)).stderr).toContain(`: missing index ${index}\n`);
  });

  it("backups, their folder and the database kept by a restore are private to their owner (0600 files, 0700 folders)", async () => {
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    const own = await databaseFileWithKey("private");
    try {
      const env = { DATABASE_URL: own.dbUrl, LOG_LEVEL: "silent" };
      const made = await runCliInProcess(["backup"], env);
      expect(made.code, made.stderr).toBe(0);
      const written = made.stdout.trim();
      expect(mode(written)).toBe("600");
      expect(mode(join(own.dir, "backups"))).toBe("700");
      const restored = await runCliInProcess(["restore", written], env);
      expect(restored.code, restored.stderr).toBe(0);
      const kept = readdirSync(own.dir).filter((name) => name.startsWith("crew.db.before-restore-"));
      expect(kept).toHaveLength(1);
      expect(mode(join(own.dir, kept[0] ?? ""))).toBe("600");
      expect(mode(join(own.dir, "crew.db"))).toBe("600");
    } finally {
      own.cleanup();
    }
  });

  it("the list of backups survives a restore: the restored database still records the backups written after it", async () => {
    const own = await databaseFileWithKey("history");
    try {
      const env = { DATABASE_URL: own.dbUrl, LOG_LEVEL: "silent" };
      const first = join(own.dir, "first.db");
      const second = join(own.dir, "second.db");
      expect((await runCliInProcess(["backup", "--to", first], env)).code).toBe(0);
      expect((await runCliInProcess(["backup", "--to", second], env)).code).toBe(0);
      const restored = await runCliInProcess(["restore", first], env);
      expect(restored.code, restored.stderr).toBe(0);
      const db = sqlite(join(own.dir, "crew.db"));
      try {
        const rows = db.prepare("SELECT event, subject FROM audit_events WHERE event LIKE 'backup.%' ORDER BY id").all() as {
          event: string;
          subject: string;
        }[];
        // `first` itself was recorded only after its copy was taken: without the carry-over, the
        // restored list would hold neither backup, only the restore.
        expect(rows).toEqual([
          { event: "backup.written", subject: first },
          { event: "backup.written", subject: second },
          { event: "backup.restored", subject: first },
        ]);
      } finally {
        db.close();
      }
    } finally {
      own.cleanup();
    }
  });

  it("a server refuses to start on a database written by a newer release, in one line naming both versions", async () => {
    const path = join(other.dir, "from-the-future.db");
    copyFileSync(backupFile(), path);
    const conn = new Database(path);
    conn.prepare("UPDATE schema_meta SET value = ? WHERE key = 'version'").run(String(SCHEMA_VERSION + 1));
    conn.close();
    const started = await runCrew(["serve"], { DATABASE_URL: `file:${path}`, PORT: "0" });
    expect(started.code).toBe(1);
    expect(started.stderr).toBe(
      `crew serve: the database is at schema version ${SCHEMA_VERSION + 1}, newer than this release's ${SCHEMA_VERSION}: run the newer Crew release (or restore a backup made by this one)\n`,
    );
  }, 30_000);
});

describe("schema step of issue 14", () => {
  it("brings a real version-1 database forward in place: the audit table appears, reset links and deactivation fold into issue 13's, data stays", async () => {
    const { openVersion1Store } = await import("../helpers/schema-v1.ts");
    const { migrate, AUDIT_LOG_AND_RESETS } = await import("../../src/store/migrations.ts");
    const { readSchema } = await import("../../src/boot.ts");
    const db = await openVersion1Store(join(other.dir, "version-1.db"));
    await db.run("INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES ('org_kept', 'Kept', 'UTC', 0, 1)");
    expect(AUDIT_LOG_AND_RESETS.length).toBeGreaterThan(3);
    expect(await migrate(db, readSchema())).toBe(SCHEMA_VERSION);
    const tables = (await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(["audit_events", "sign_in_links"]));
    expect(tables).not.toEqual(expect.arrayContaining(["password_resets"]));
    expect(tables).not.toEqual(expect.arrayContaining(["user_deactivations"]));
    expect(await db.one("SELECT name FROM organizations WHERE id = 'org_kept'")).toEqual({ name: "Kept" });
    db.close();
  });
});
