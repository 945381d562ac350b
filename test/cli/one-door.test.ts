/**
 * Issue 19, one door for the CLI (src/docs/notes/cli.md, "The command line acts as the owner"):
 * `crew` writes run their operations through `invoke` as the CLI principal, so the operations'
 * rules apply (the last owner stays one, the Password schema) and the audit log names actor `cli`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { listAudit } from "../../src/store/audit/audit.ts";
import { openStore } from "../../src/store/db.ts";
import { getDefaultOrg } from "../../src/store/orgs/orgs.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { databaseEnv, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";

const temp = tempDir("crew-one-door-");
let dbUrl: string;
let env: Record<string, string>;
const crew = (...args: string[]) => runCliInProcess(args, env);

beforeAll(async () => {
  dbUrl = await testDatabaseUrl(temp.dir);
  env = { ...databaseEnv(dbUrl), LOG_LEVEL: "silent" };
  (await prepareDatabase(dbUrl, loadConfig(env), Date.now())).db.close();
});
afterAll(() => temp.cleanup());

describe("the CLI acts through the operations", () => {
  it("keeps the last owner, applies the Password schema, and audits every write as actor cli", async () => {
    expect((await crew("user", "create", "--email", "first@example.com", "--password", "long enough secret")).stdout).toContain(
      "role owner",
    );
    expect((await crew("user", "create", "--email", "second@example.com", "--password", "long enough secret")).code).toBe(0);

    // deactivateUser's rule: the organization keeps an active owner (the CLI once skipped it).
    const last = await crew("user", "deactivate", "--email", "first@example.com");
    expect(last).toMatchObject({ code: 1, stdout: "" });
    expect(last.stderr).toContain("The last owner stays an owner.");

    expect(await crew("user", "reset-password", "--email", "second@example.com", "--password", "short")).toEqual({
      code: 2,
      stdout: "",
      stderr: "crew user reset-password: --password: Use at least 8 characters. (see crew user reset-password --help)\n",
    });

    expect((await crew("user", "set-role", "--email", "second@example.com", "--role", "owner")).code).toBe(0);
    // The CLI principal is the first owner, yet it may deactivate them: the CLI is no one's session.
    expect((await crew("user", "deactivate", "--email", "first@example.com")).code).toBe(0);
    expect((await crew("key", "create", "--email", "second@example.com", "--name", "k", "--scopes", "read")).code).toBe(1);
    expect((await crew("user", "set-plan", "--email", "second@example.com", "--plan", "pro")).code).toBe(0);
    const key = (await crew("key", "create", "--email", "second@example.com", "--name", "k", "--scopes", "read")).stdout.trim();
    expect(key).toMatch(/^crew_/);

    const db = await openStore({ url: dbUrl });
    try {
      const org = await getDefaultOrg(db);
      const entries = await listAudit(db, org!.id, 50);
      expect(entries.map((e) => e.event).sort()).toEqual(
        ["key.created", "user.created", "user.created", "user.deactivated", "user.plan_changed", "user.role_changed"].sort(),
      );
      for (const e of entries) expect(e.actor, e.event).toEqual({ kind: "cli" });
    } finally {
      db.close();
    }
  }, 120_000);
});
