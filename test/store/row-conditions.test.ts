/**
 * Writes whose later statements rely on an earlier claim, with no lock wider than their rows
 * (src/docs/notes/postgres.md#writes-without-a-global-lock): many at once, on one store (on
 * PostgreSQL each on its own pooled connection), give what one at a time gives. These statements
 * used SQLite's `changes()` (emulated on PostgreSQL) or relied on a cluster-wide write lock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { auditStatement, auditStatementIf, listAudit } from "../../src/store/audit/audit.ts";
import { insertApiKeyWithinLimit } from "../../src/store/auth/api-keys.ts";
import { claimSignInLink, insertSignInLink } from "../../src/store/auth/sign-in-links.ts";
import { createUser, deactivateUser } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { insertHandoff } from "../../src/store/feed/handoffs.ts";
import type { Organization } from "../../src/store/orgs/orgs.ts";
import { startRun } from "../../src/store/runs/runs.ts";
import { databaseEnv, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";

const AT = Date.UTC(2026, 5, 1, 9);
const AT_ONCE = 8;

const temp = tempDir("crew-row-conditions-");
let db: Db;
let org: Organization;
let n = 0;

beforeAll(async () => {
  const url = await testDatabaseUrl(temp.dir);
  ({ db, org } = await prepareDatabase(url, loadConfig(databaseEnv(url)), AT));
});
afterAll(() => {
  db.close();
  temp.cleanup();
});

const newUser = async () => {
  n++;
  return createUser(
    db,
    { orgId: org.id, email: `row${n}@example.com`, name: `Row ${n}`, passwordHash: "hash-before", plan: "operator" },
    AT,
  );
};

const times = <T>(count: number, work: (i: number) => Promise<T>) => Promise.all(Array.from({ length: count }, (_, i) => work(i)));

describe("row conditions instead of a global write lock", () => {
  it("a sign-in link is used once: of eight submissions in the same millisecond one sets the password, the others change nothing", async () => {
    const user = await newUser();
    await db.run("INSERT INTO sessions (id, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)", [
      "ses_row",
      user.id,
      "csrf",
      AT,
      AT + 3_600_000,
    ]);
    await insertSignInLink(db, "link-hash", user.id, "reset", AT, AT + 3_600_000);
    const results = await times(AT_ONCE, (i) => claimSignInLink(db, "link-hash", "reset", `hash-${i}`, AT + 1));
    const winners = results.flatMap((id, i) => (id === null ? [] : [i]));
    expect(winners).toHaveLength(1);
    expect(results[winners[0] as number]).toBe(user.id);
    const row = await db.one<{ password_hash: string }>("SELECT password_hash FROM users WHERE id = ?", [user.id]);
    // The winner's hash, not a loser's written after it.
    expect(row?.password_hash).toBe(`hash-${winners[0]}`);
    expect(await db.one("SELECT 1 AS x FROM sessions WHERE user_id = ?", [user.id])).toBeNull();
    // Used: a later submission changes nothing.
    expect(await claimSignInLink(db, "link-hash", "reset", "hash-late", AT + 2)).toBeNull();
    expect((await db.one<{ password_hash: string }>("SELECT password_hash FROM users WHERE id = ?", [user.id]))?.password_hash).toBe(
      `hash-${winners[0]}`,
    );
  });

  it("a deactivation is audited once: eight at once in the same millisecond, one true and one audit row", async () => {
    const user = await newUser();
    const results = await times(AT_ONCE, () => deactivateUser(db, org.id, user.id, { kind: "cli" }, AT + 5));
    expect(results.filter(Boolean)).toHaveLength(1);
    const audit = await listAudit(db, org.id, 100, undefined, ["user.deactivated"]);
    expect(audit.filter((e) => e.subject === user.email)).toHaveLength(1);
  });

  it("an API key limit of 3 holds for eight creations at once", async () => {
    const user = await newUser();
    const results = await times(AT_ONCE, (i) =>
      insertApiKeyWithinLimit(db, { hash: `key-hash-${n}-${i}`, userId: user.id, name: `k${i}`, scopes: ["read"] }, AT, 3, AT - 3_600_000),
    );
    expect(results.filter(Boolean)).toHaveLength(3);
    const row = await db.one<{ n: number }>("SELECT count(*) AS n FROM api_keys WHERE user_id = ?", [user.id]);
    expect(row?.n).toBe(3);
  });

  it("queued handoffs are claimed once by runs starting at once, and none is left behind", async () => {
    const queued = 30;
    for (let i = 0; i < queued; i++) {
      await insertHandoff(db, {
        id: `hnd_row_${String(i).padStart(2, "0")}`,
        orgId: org.id,
        from: "standup",
        to: "briefing",
        title: `Handoff ${i}`,
        context: null,
        priority: "medium",
        type: null,
        createdBy: "test",
        createdAt: AT + i,
      });
    }
    const claims = await times(AT_ONCE, (i) =>
      startRun(db, { id: `run_row_${i}`, orgId: org.id, agentId: "briefing", startedAt: AT + 100 }),
    );
    const ids = claims.flat().map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Each run claims up to 100: the first to run takes them all on SQLite; on PostgreSQL a run
    // skips the rows another holds. Either way every handoff is claimed by exactly one run.
    expect(ids.sort()).toEqual(Array.from({ length: queued }, (_, i) => `hnd_row_${String(i).padStart(2, "0")}`));
    const rows = await db.all<{ run_id: string }>("SELECT run_id FROM handoffs WHERE org_id = ? AND to_agent = 'briefing'", [org.id]);
    expect(rows.every((r) => r.run_id?.startsWith("run_row_"))).toBe(true);
  });

  it("auditStatementIf writes its row only while its condition holds, as a statement of its own", async () => {
    const written = auditStatementIf({ sql: "1 = ?", args: [1] }, org.id, "user.created", { kind: "cli" }, AT + 10, "if-true@example.com");
    const skipped = auditStatementIf({ sql: "1 = ?", args: [2] }, org.id, "user.created", { kind: "cli" }, AT + 10, "if-false@example.com");
    await db.batch([written, skipped], "write");
    const subjects = (await listAudit(db, org.id, 100, undefined, ["user.created"])).map((e) => e.subject);
    expect(subjects).toContain("if-true@example.com");
    expect(subjects).not.toContain("if-false@example.com");
    // The same columns as the unconditional row.
    expect(written.args.slice(0, -1)).toHaveLength(auditStatement(org.id, "user.created", { kind: "cli" }, AT, "x").args.length);
  });
});
