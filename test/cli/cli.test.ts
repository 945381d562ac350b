/**
 * `crew` on a temp database (a file, or one on the PostgreSQL test cluster): every command's --help, success output, --json records, and
 * the one-line errors with their exit codes (2 usage, 1 failure). Each behaviour runs at least
 * once as a real process (bin/crew.js through tsx, as `npx crew` runs it); the long tables of
 * help texts and usage errors also run in this process through runCli, the same function
 * bin/crew.js calls, because each spawned run costs half a second of CPU.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/auth/passwords.ts";
import { runCli } from "../../src/cli/index.ts";
import { loadConfig } from "../../src/config.ts";
import type { Plan } from "../../src/domain.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { findActiveKeyOwner } from "../../src/store/auth/api-keys.ts";
import { createUser, getUserByEmail } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { runCliInProcess, runCrew, startRuntime } from "../helpers/cli.ts";
import { databaseEnv, TEST_ENGINE, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir, testPasswordHash } from "../helpers/server.ts";
import { freePort } from "../helpers/spawn.ts";

const temp = tempDir("crew-cli-");
let env: { DATABASE_URL: string; CREW_SECRET?: string };
const crew = (...args: string[]) => runCrew(args, env);
const local = (...args: string[]) => runCliInProcess(args, env);
let db: Db;

beforeAll(async () => {
  const now = Date.now();
  const dbUrl = await testDatabaseUrl(temp.dir);
  env = databaseEnv(dbUrl);
  const prepared = await prepareDatabase(dbUrl, loadConfig(env), now);
  db = prepared.db;
  const users: [string, Plan][] = [
    ["taken@example.com", "lite"],
    ["pro@example.com", "pro"],
    ["lite@example.com", "lite"],
    ["operator@example.com", "operator"],
    ["upgrade@example.com", "lite"],
  ];
  for (const [email, plan] of users) {
    await createUser(db, { orgId: prepared.org.id, email, name: email, passwordHash: await testPasswordHash(), plan }, now);
  }
});
afterAll(() => {
  db.close();
  temp.cleanup();
});

/** One error line on stderr, nothing on stdout. */
function expectError(result: { code: number | string | null; stdout: string; stderr: string }, code: number, line: string) {
  expect(result).toEqual({ code, stdout: "", stderr: `${line}\n` });
}

describe.concurrent("help", () => {
  it("crew --help lists every command; each command's --help shows its usage and options", async () => {
    const commands: [string[], string[]][] = [
      [["serve"], []],
      [["migrate"], []],
      [["seed"], ["--demo"]],
      [
        ["user", "create"],
        ["--email E", "--password P", "--name N", "--plan PLAN", "--json"],
      ],
      [
        ["user", "set-plan"],
        ["--email E", "--plan PLAN"],
      ],
      [
        ["key", "create"],
        ["--email E", "--name N", "--scopes a,b", "--json"],
      ],
      [["mcp"], ["CREW_API_KEY"]],
    ];
    const [top, spawnedHelp, short, group, ...each] = await Promise.all([
      crew("--help"),
      crew("user", "create", "--help"),
      local("-h"),
      local("user", "--help"),
      ...commands.map(([words]) => local(...words, "--help")),
    ]);
    expect(spawnedHelp).toEqual(each[3]);
    expect(top?.code).toBe(0);
    expect(top?.stderr).toBe("");
    expect(top?.stdout).toContain("Usage: crew <command> [options]");
    for (const [words] of commands) expect(top?.stdout).toMatch(new RegExp(`^  ${words.join(" ")} +\\S`, "m"));
    expect(top?.stdout).toMatch(/^ {2}agents run +\S/m);
    expect(short).toEqual(top);
    expect(group?.code).toBe(0);
    expect(group?.stdout).toContain("Usage: crew user create");
    expect(group?.stdout).toContain("Usage: crew user set-plan");
    commands.forEach(([words, flags], i) => {
      const result = each[i];
      expect(result?.code, words.join(" ")).toBe(0);
      expect(result?.stderr).toBe("");
      expect(result?.stdout).toMatch(new RegExp(`^Usage: crew ${words.join(" ")}`));
      expect(result?.stdout).toContain("--help");
      expect(result?.stdout).toContain("Example:");
      for (const flag of flags) expect(result?.stdout, `${words.join(" ")} ${flag}`).toContain(flag);
    });
  });
});

describe.concurrent("usage errors (exit 2)", () => {
  it("names the problem in one line on stderr", async () => {
    const cases: [string[], string][] = [
      [[], "crew: missing command (see crew --help)"],
      [["launch"], 'crew: unknown command "launch" (see crew --help)'],
      [
        ["user"],
        "crew: missing subcommand: user create | user set-plan | user set-role | user list | user reset-password | user deactivate (see crew --help)",
      ],
      [["user", "delete"], 'crew: unknown command "user delete" (see crew --help)'],
      [["migrate", "--force"], "crew migrate: unknown option --force (see crew migrate --help)"],
      [["seed", "--demo=yes"], "crew seed: --demo takes no value (see crew seed --help)"],
      [["user", "create", "--email", "a@example.com"], "crew user create: missing --password (see crew user create --help)"],
      [["user", "create", "--password", "12345678", "--email"], "crew user create: --email needs a value (see crew user create --help)"],
      [
        ["user", "create", "--email", "not-an-email", "--password", "12345678"],
        // The operation's own rules (src/cli/principal.ts): the first issue, named by its flag.
        "crew user create: --email: Must be a valid email address. (see crew user create --help)",
      ],
      [
        ["user", "create", "--email", "short@example.com", "--password", "1234567"],
        "crew user create: --password: Use at least 8 characters. (see crew user create --help)",
      ],
      [
        ["user", "create", "--email", "gold@example.com", "--password", "12345678", "--plan", "gold"],
        "crew user create: --plan: Must be one of lite, pro, operator, team_starter, team_growth, team_enterprise. (see crew user create --help)",
      ],
      [["user", "set-plan", "--email", "pro@example.com"], "crew user set-plan: missing --plan (see crew user set-plan --help)"],
      [
        ["key", "create", "--email", "operator@example.com", "--name", "k", "--scopes", "read,write"],
        'crew key create: --scopes ("write"): Must be one of admin, read, briefing, agents. (see crew key create --help)',
      ],
      [
        ["key", "create", "--email", "operator@example.com", "--name", "k", "--scopes", " , "],
        "crew key create: --scopes: Give at least one scope. (see crew key create --help)",
      ],
      [
        ["key", "create", "--email", "operator@example.com", "--scopes", "read"],
        "crew key create: missing --name (see crew key create --help)",
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => local(...args)));
    cases.forEach(([args, line], i) => {
      expect(results[i], args.join(" ")).toEqual({ code: 2, stdout: "", stderr: `${line}\n` });
    });
    // The real process exits with that code.
    const spawned = await Promise.all([0, 1, 6].map((i) => crew(...(cases[i]?.[0] ?? []))));
    expect(spawned).toEqual([0, 1, 6].map((i) => ({ code: 2, stdout: "", stderr: `${cases[i]?.[1]}\n` })));
  });
});

describe.concurrent("failures (exit 1)", () => {
  it("refuses a duplicate email, an unknown email, and scopes outside the plan", async () => {
    const [duplicate, unknownPlan, unknownKey, adminOnPro, lite] = await Promise.all([
      crew("user", "create", "--email", "TAKEN@example.com", "--password", "12345678"),
      crew("user", "set-plan", "--email", "nobody@example.com", "--plan", "pro"),
      local("key", "create", "--email", "nobody@example.com", "--name", "k", "--scopes", "read"),
      crew("key", "create", "--email", "pro@example.com", "--name", "k", "--scopes", "read,admin"),
      local("key", "create", "--email", "lite@example.com", "--name", "k", "--scopes", "read"),
    ]);
    expectError(duplicate!, 1, "crew user create: --email is refused: A user with this email exists already.");
    expectError(unknownPlan!, 1, "crew user set-plan: no user with email nobody@example.com");
    expectError(unknownKey!, 1, "crew key create: no user with email nobody@example.com");
    expectError(
      adminOnPro!,
      1,
      "crew key create: The plan of pro@example.com (pro) does not allow the scope admin on a key; the operator plan does.",
    );
    expectError(lite!, 1, "crew key create: The plan of lite@example.com (lite) does not include API keys; the pro plan does.");
  });

  it("crew mcp refuses to start without CREW_API_KEY", async () => {
    const result = await local("mcp");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^crew mcp: CREW_API_KEY is not set[^\n]*\n$/);
  });

  it("stops on a bad configuration value, naming the variable", async () => {
    let databaseError = "";
    const [port, database] = await Promise.all([
      runCrew(["migrate"], { ...env, PORT: "eighty" }),
      runCli(
        ["seed"],
        { DATABASE_URL: "mysql://localhost/crew" },
        {
          out: () => {},
          err: (text) => {
            databaseError += text;
          },
        },
      ),
    ]);
    expectError(port!, 1, 'crew migrate: PORT must be a whole number, got "eighty"');
    expect(database).toBe(1);
    expect(databaseError).toBe(
      'crew seed: DATABASE_URL must start with file:, postgres://, postgresql://, libsql://, http(s):// or ws(s)://, got "mysql://localhost/crew"\n',
    );
  });
});

describe.concurrent("commands", () => {
  it("user create stores a user with a hashed password; --json prints the record without the hash", async () => {
    const [plain, json] = await Promise.all([
      crew(
        "user",
        "create",
        "--email",
        "Grace@Example.com",
        "--password",
        "a long password",
        "--name",
        "Grace Hopper",
        "--plan",
        "operator",
        // Explicit: the first user of an organization would be its owner (test/cli/first-use.test.ts).
        "--role",
        "member",
      ),
      crew("user", "create", "--email", "linus@example.com", "--password", "12345678", "--json"),
    ]);
    expect(plain?.code).toBe(0);
    expect(plain?.stderr).toBe("");
    expect(plain?.stdout).toMatch(
      /^Created user grace@example\.com \(usr_[0-9A-Z]{26}\) on plan operator, role member, in Default organization\.\n$/,
    );
    const grace = await getUserByEmail(db, "grace@example.com");
    expect(grace).toMatchObject({ name: "Grace Hopper", plan: "operator" });
    expect(grace?.passwordHash).toMatch(/^pbkdf2_sha256\$600000\$/);
    expect(await verifyPassword("a long password", grace!.passwordHash)).toBe(true);

    expect(json?.code).toBe(0);
    const record = JSON.parse(json!.stdout);
    expect(Object.keys(record).sort()).toEqual(["createdAt", "deactivatedAt", "email", "id", "name", "orgId", "plan", "role", "timeZone"]);
    expect(record).toMatchObject({ email: "linus@example.com", name: "linus", plan: "lite", timeZone: null });
    expect(record.id).toMatch(/^usr_/);
    expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    expect(json?.stdout).not.toContain("pbkdf2");
  });

  it("user set-plan changes the plan", async () => {
    const result = await crew("user", "set-plan", "--email", "Upgrade@example.com", "--plan", "team_growth");
    expect(result).toEqual({
      code: 0,
      stdout: "upgrade@example.com is now on plan team_growth (allowed key scopes: read, briefing, agents).\n",
      stderr: "",
    });
    expect((await getUserByEmail(db, "upgrade@example.com"))?.plan).toBe("team_growth");
  });

  it("key create prints the raw key once (stdout) and stores only its hash; --json adds the record", async () => {
    const [plain, json] = await Promise.all([
      crew("key", "create", "--email", "pro@example.com", "--name", "laptop", "--scopes", "read,agents,read"),
      crew("key", "create", "--email", "operator@example.com", "--name", "ci", "--scopes", "admin", "--json"),
    ]);
    expect(plain?.code).toBe(0);
    expect(plain?.stdout).toMatch(/^crew_[a-z2-7]{52}\n$/);
    expect(plain?.stderr).toBe('Created key "laptop" for pro@example.com with scopes read, agents. It is shown only once: store it now.\n');
    const key = plain!.stdout.trim();
    expect(await findActiveKeyOwner(db, sha256Hex(key))).toMatchObject({ email: "pro@example.com", scopes: ["read", "agents"] });

    expect(json?.code).toBe(0);
    expect(json?.stderr).toBe("");
    const record = JSON.parse(json!.stdout);
    expect(record).toMatchObject({ name: "ci", scopes: ["admin"], email: "operator@example.com" });
    expect(record.hash).toBe(sha256Hex(record.key));
    expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    expect(await findActiveKeyOwner(db, record.hash)).toMatchObject({ plan: "operator", scopes: ["admin"] });
  });

  it("migrate and seed prepare a new database; seed alone loads no demo content", async () => {
    const fresh = tempDir("crew-cli-fresh-");
    try {
      // A SQLite file's missing folder is created too; a PostgreSQL database is made empty by the test.
      const freshEnv = databaseEnv(
        TEST_ENGINE === "sqlite" ? `file:${join(fresh.dir, "nested", "crew.db")}` : await testDatabaseUrl(fresh.dir),
      );
      const migrated = await runCrew(["migrate"], freshEnv);
      expect(migrated).toEqual({
        code: 0,
        stdout: `Database ${freshEnv.DATABASE_URL} is at schema version ${SCHEMA_VERSION}.\n`,
        stderr: "",
      });
      const seeded = await runCrew(["seed"], freshEnv);
      expect(seeded).toEqual({
        code: 0,
        stdout: "Default organization and its 17 agents are in place (add --demo for demo content).\n",
        stderr: "",
      });
    } finally {
      fresh.cleanup();
    }
  });

  it("serve starts the Node server, which exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const server = await startRuntime(process.execPath, ["bin/crew.js", "serve"], {
      ...env,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ ok: true });
    expect(await server.stop()).toBe(0);
  });
});
