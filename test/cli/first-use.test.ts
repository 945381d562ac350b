/**
 * Issue 18, first use (src/docs/notes/operating.md): the first user of an organization is its owner and
 * `crew user set-role` changes roles (item 19); the CLI reads the server's `.env` and refuses a
 * database file that does not exist instead of creating an empty one (item 20); `crew backup` and
 * `crew restore` never migrate (item 21).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.ts";
import { currentVersion, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { runCliInProcess, runCrew } from "../helpers/cli.ts";
import { databaseEnv, TEST_ENGINE, testDatabaseUrl } from "../helpers/database.ts";
import { openVersion1Store } from "../helpers/schema-v1.ts";
import { tempDir } from "../helpers/server.ts";

let temp: ReturnType<typeof tempDir>;
/** The database of item 19's owners, used again by item 27. */
let rolesUrl: string;
beforeAll(() => {
  temp = tempDir("crew-first-use-");
});
afterAll(() => temp.cleanup());

const roleOf = async (dbUrl: string, email: string) => {
  const db = await openStore({ url: dbUrl });
  try {
    return (await db.one<{ role: string }>("SELECT role FROM users WHERE email = ?", [email]))?.role;
  } finally {
    db.close();
  }
};

describe("item 19: the first user is an owner; crew user set-role", () => {
  it("makes the README's scripted first user an owner, later ones members, and keeps one owner", async () => {
    rolesUrl = await testDatabaseUrl(temp.dir, "roles");
    const dbUrl = rolesUrl;
    const env = { ...databaseEnv(dbUrl), LOG_LEVEL: "silent" };
    const create = (email: string, ...more: string[]) =>
      runCliInProcess(["user", "create", "--email", email, "--password", "long enough secret", "--plan", "operator", ...more], env);
    const first = await create("first@example.com");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("role owner");
    expect(await roleOf(dbUrl, "first@example.com")).toBe("owner");
    expect((await create("second@example.com")).stdout).toContain("role member");
    expect((await create("third@example.com", "--role", "owner")).stdout).toContain("role owner");

    const setRole = (email: string, role: string) => runCliInProcess(["user", "set-role", "--email", email, "--role", role], env);
    const promoted = await setRole("second@example.com", "owner");
    expect(promoted.code).toBe(0);
    expect(await roleOf(dbUrl, "second@example.com")).toBe("owner");
    expect((await setRole("third@example.com", "member")).code).toBe(0);
    expect((await setRole("second@example.com", "member")).code).toBe(0);
    const last = await setRole("first@example.com", "member");
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("last owner");
    expect(await roleOf(dbUrl, "first@example.com")).toBe("owner");
    expect((await setRole("first@example.com", "admin")).code).toBe(2);
    expect((await setRole("nobody@example.com", "owner")).code).toBe(1);

    const audit = await runCliInProcess(["audit"], env);
    expect(audit.stdout).toContain("user.role_changed");
  });

  it("a new organization's first user is its owner too", async () => {
    const env = { ...databaseEnv(await testDatabaseUrl(temp.dir, "orgs")), LOG_LEVEL: "silent" };
    await runCliInProcess(["user", "create", "--email", "root@example.com", "--password", "long enough secret"], env);
    expect((await runCliInProcess(["org", "create", "--name", "Branch"], env)).code).toBe(0);
    const created = await runCliInProcess(
      ["user", "create", "--email", "lead@example.com", "--password", "long enough secret", "--org", "Branch"],
      env,
    );
    expect(created.stdout).toContain("role owner");
  });
});

// Items 20 and 21 are about database files (a missing file is not created; a backup is a copy of
// the file): SQLite only. PostgreSQL backups are pg_dump's (src/docs/notes/testing.md#two-engines).
if (TEST_ENGINE === "sqlite") {
  describe("item 20: one configuration for server and CLI", () => {
    it("refuses a database file that does not exist, naming the path and DATABASE_URL, and creates nothing", async () => {
      const folder = join(temp.dir, "elsewhere");
      mkdirSync(folder);
      for (const args of [["backup"], ["user", "list"], ["key", "list", "--email", "a@example.com"], ["seed", "--demo"]]) {
        const res = await runCrew(args, {}, undefined, folder);
        expect(res.code, args.join(" ")).toBe(1);
        expect(res.stderr).toContain("no Crew database found");
        expect(res.stderr).toContain(join(folder, "data", "crew.db"));
        expect(res.stderr).toContain("DATABASE_URL");
      }
      expect(existsSync(join(folder, "data"))).toBe(false);
    }, 60_000);

    it("reads .env in the working directory: the server's database and BASE_URL; the environment wins", async () => {
      const folder = join(temp.dir, "with-env");
      mkdirSync(folder);
      const dbUrl = `file:${join(temp.dir, "server.db")}`;
      const env = { DATABASE_URL: dbUrl, LOG_LEVEL: "silent" };
      expect((await runCliInProcess(["user", "create", "--email", "ops@example.com", "--password", "long enough secret"], env)).code).toBe(
        0,
      );
      writeFileSync(join(folder, ".env"), `# the server's settings\nDATABASE_URL=${dbUrl}\nBASE_URL="https://crew.example.com"\n`);
      const link = await runCrew(["user", "reset-password", "--email", "ops@example.com"], {}, undefined, folder);
      expect(link.code).toBe(0);
      expect(link.stdout).toMatch(/https:\/\/crew\.example\.com\/\S+/);
      expect(link.stdout).not.toContain("localhost:3000");
      const overridden = await runCrew(["user", "list"], { DATABASE_URL: `file:${join(folder, "none.db")}` }, undefined, folder);
      expect(overridden.code).toBe(1);
      expect(overridden.stderr).toContain("none.db");
    }, 60_000);
  });

  describe("item 21: backups never migrate", () => {
    it("crew backup copies an older database as it is, and leaves it at its version", async () => {
      const path = join(temp.dir, "old.db");
      const old = await openVersion1Store(path);
      await old.run(
        "INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES ('org_default', 'Default', 'UTC', 1, 1)",
      );
      old.close();
      const to = join(temp.dir, "old-backup.db");
      const res = await runCliInProcess(["backup", "--to", to], { DATABASE_URL: `file:${path}`, LOG_LEVEL: "silent" });
      expect(res.stderr).toContain("schema version 1");
      expect(res.code).toBe(0);
      for (const file of [path, to]) {
        const db = await openStore({ url: `file:${file}` });
        expect(await currentVersion(db)).toBe(1);
        db.close();
      }
      expect(SCHEMA_VERSION).toBeGreaterThan(1);
    });

    it("crew restore puts an older backup in place as it is (the server upgrades it at start)", async () => {
      const path = join(temp.dir, "live.db");
      const res = await runCliInProcess(["restore", join(temp.dir, "old-backup.db")], {
        DATABASE_URL: `file:${path}`,
        LOG_LEVEL: "silent",
      });
      expect(res.code).toBe(0);
      const db = await openStore({ url: `file:${path}` });
      expect(await currentVersion(db)).toBe(1);
      db.close();
    });
  });
}

describe("item 27: crew agents run slack says what to do", () => {
  it("names what the Slack agent needs (it is model-backed now), not a missing built-in runner", async () => {
    const res = await runCliInProcess(["agents", "run", "slack"], { ...databaseEnv(rolesUrl), LOG_LEVEL: "silent" });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("agent slack did not run: Needs a model: connect one in Settings → Model.");
    expect(res.stderr).not.toContain("has no built-in runner");
  });
});
