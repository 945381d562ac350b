/**
 * Scheduled backups (src/docs/notes/operating.md): one pass of the leader's task writes a backup into BACKUP_DIR and
 * keeps the newest BACKUP_KEEP; another process without the lease writes nothing. Owners see
 * the backups and the audit log in the web app; other members do not.
 */
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBackupPass } from "../../src/background/backups.ts";
import { backupFiles } from "../../src/boot.ts";
import type { User } from "../../src/store/auth/users.ts";
import { checkBackup } from "../../src/store/backup.ts";
import { startServer, type TestServer, tempDir } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

const dir = tempDir("crew-scheduled-");
let s: TestServer;
let owner: User;

beforeAll(async () => {
  s = await startServer({ env: { BACKUP_DIR: dir.dir, BACKUP_KEEP: "3", BACKUP_SCHEDULE: "0 3 * * *" } });
  owner = await s.createUser("operator", undefined, "owner");
});
afterAll(async () => {
  await s.close();
  dir.cleanup();
});

describe("scheduled backups", () => {
  it("the lease holder writes a checked backup per pass and keeps the newest BACKUP_KEEP", async () => {
    chmodSync(dir.dir, 0o755); // as an operator's mkdir leaves it: Crew makes it private
    const written: string[] = [];
    for (let i = 0; i < 5; i++) {
      const pass = await runBackupPass(s.deps, backupFiles, "leader");
      expect(pass.written).toEqual(expect.any(String));
      written.push(pass.written ?? "");
      expect(await runBackupPass(s.deps, backupFiles, "follower")).toEqual({ written: null, removed: [] });
      s.clock.advance(61_000);
    }
    const kept = readdirSync(dir.dir).sort();
    for (const name of kept) expect((statSync(join(dir.dir, name)).mode & 0o777).toString(8), name).toBe("600");
    expect((statSync(dir.dir).mode & 0o777).toString(8)).toBe("700");
    expect(kept.map((name) => join(dir.dir, name))).toEqual(written.slice(2));
    for (const name of kept) expect(checkBackup(join(dir.dir, name)).schemaVersion).toBeGreaterThan(0);
  });

  it("owners see the backups and the audit log in the web app and its Settings menu; other members get 403 and no menu entry", async () => {
    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);
    const backups = await tab.request("/settings/backups");
    expect(backups.status).toBe(200);
    expect(backups.text).toContain(dir.dir);
    expect(backups.text).toContain("crew-secret");
    expect(backups.text.match(/<td[^>]*>written \(System\)<\/td>/g)?.length).toBe(5);
    const audit = await tab.request("/settings/audit");
    expect(audit.status).toBe(200);
    // Events in words, their names in the tooltip (src/docs/notes/web-app.md).
    expect(audit.text).toContain('<span title="backup.written">Backup written</span>');
    expect(audit.text).toContain('<span title="sign_in.succeeded">Sign in succeeded</span>');
    // Both are in an owner's Settings menu, the current one marked.
    expect(audit.text).toContain('<a href="/settings/audit" aria-current="page">Audit log</a>');
    expect(audit.text).toContain('<a href="/settings/backups">Backups</a>');

    const member = await s.createUser("operator");
    const other = new Browserish(s.url);
    await other.signIn(member.email);
    expect((await other.request("/settings/audit")).status).toBe(403);
    expect((await other.request("/settings/backups")).status).toBe(403);
    const memberMenu = (await other.request("/dashboard")).text;
    // A member's menu holds only "You" (src/docs/notes/web-app.md): their keys, not the organization's settings.
    expect(memberMenu).toContain('href="/settings/keys"');
    expect(memberMenu).not.toContain('href="/settings/sources"');
    expect(memberMenu).not.toContain('href="/settings/audit"');
    expect(memberMenu).not.toContain('href="/settings/backups"');
    expect((await new Browserish(s.url).request("/settings/audit")).status).toBe(303);
  });
});
