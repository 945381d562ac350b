/**
 * The audit log cannot be forged, does not grow with attacks, is retained for a set time, and is
 * no cross-organization oracle (src/docs/notes/operating.md): failed sign-ins over real HTTP, `crew audit` run as the
 * CLI runs, retention as the leader runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, ManualClock } from "../../src/lib/clock.ts";
import { listAudit, recordAudit } from "../../src/store/audit/audit.ts";
import { createOrg } from "../../src/store/orgs/orgs.ts";
import { runRetention } from "../../src/store/retention.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

let s: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  s = await startServer({ clock: new ManualClock(Date.now()) });
  env = { DATABASE_URL: s.config.databaseUrl, BASE_URL: s.url, CREW_SECRET: "test-secret-test-secret-test-secret-00", LOG_LEVEL: "silent" };
});
afterAll(() => s.close());

const failedSignIns = async (orgId: string) => (await listAudit(s.db, orgId, 1000, undefined, ["sign_in.failed"])).length;
const signIn = (email: string, password: string) =>
  new Browserish(s.url).request("/api/auth/sign-in", { json: { email, password } }).then((r) => r.status);

describe("failed sign-ins in the audit log", () => {
  it("an unknown email and another organization's user read the same to every other organization's owner", async () => {
    const other = await createOrg(s.db, "Other Org", "UTC", s.clock.now());
    const elsewhere = await s.createUser("operator", "elsewhere@example.com");
    await s.db.run("UPDATE users SET org_id = ? WHERE id = ?", [other.id, elsewhere.id]);
    const before = await failedSignIns(s.org.id);
    expect(await signIn("nobody-here@example.com", "wrong password")).toBe(401);
    const afterUnknown = await failedSignIns(s.org.id);
    expect(await signIn("elsewhere@example.com", "wrong password")).toBe(401);
    const afterKnown = await failedSignIns(s.org.id);
    // The default organization's owner sees neither (nothing to compare), the other organization its own user's.
    expect([afterUnknown - before, afterKnown - afterUnknown]).toEqual([0, 0]);
    expect((await listAudit(s.db, other.id, 10, undefined, ["sign_in.failed"])).map((e) => e.subject)).toEqual(["elsewhere@example.com"]);
  });

  it("a flood of invented emails adds no audit rows", async () => {
    const count = async () => (await s.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM audit_events"))?.n ?? 0;
    const before = await count();
    for (let i = 0; i < 8; i++) expect(await signIn(`invented-${i}@example.com`, "x")).toBe(401);
    expect(await count()).toBe(before);
  });
});

describe("audit subjects", () => {
  it("are stored without control characters, and crew audit prints older raw ones escaped", async () => {
    const forged = "mallory@example.com\n2026-11-27T00:00:00.000Z  user.role_changed  cli  \u001b[2Kadmin@example.com";
    await recordAudit(s.db, s.org.id, "user.created", { kind: "cli" }, s.clock.now(), forged);
    const [stored] = await listAudit(s.db, s.org.id, 1, undefined, ["user.created"]);
    expect(stored?.subject).toBe(forged.replace("\n", "\ufffd").replace("\u001b", "\ufffd"));
    // A row written before subjects were cleaned: printed escaped, on one line.
    await s.db.run("UPDATE audit_events SET subject = ? WHERE id = ?", [forged, stored?.id ?? ""]);
    const printed = await runCliInProcess(["audit", "--limit", "1"], env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).not.toContain("\u001b");
    expect(printed.stdout.trim().split("\n")).toHaveLength(2);
    expect(printed.stdout).toContain("mallory@example.com\\x0a2026-11-27");
    expect(printed.stdout).toContain("\\x1b[2Kadmin@example.com");
  });
});

describe("audit retention", () => {
  it("keeps a year by default and AUDIT_RETENTION_DAYS when set, in bounded batches", async () => {
    const now = s.clock.now();
    await recordAudit(s.db, s.org.id, "backup.written", { kind: "system" }, now - 400 * DAY, "old.db");
    await recordAudit(s.db, s.org.id, "backup.written", { kind: "system" }, now - 100 * DAY, "recent.db");
    const subjects = async () => (await listAudit(s.db, s.org.id, 1000, undefined, ["backup.written"])).map((e) => e.subject);
    expect(await subjects()).toEqual(["recent.db", "old.db"]);
    const deleted = await runRetention(s.db, now, { signInWindowMs: 15 * 60_000 });
    expect(deleted.audit_events).toBe(1);
    expect(await subjects()).toEqual(["recent.db"]);
    await runRetention(s.db, now, { signInWindowMs: 15 * 60_000, auditRetentionMs: 30 * DAY });
    expect(await subjects()).toEqual([]);
  });
});
