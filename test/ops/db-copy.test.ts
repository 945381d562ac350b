import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "libsql";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { seedDemo } from "../../src/demo/seed.ts";
import { CopyFailed, copyDatabase, copyOrder } from "../../src/store/copy.ts";
import { type Db, openStore } from "../../src/store/db.ts";
import { runCliInProcess, runCrew } from "../helpers/cli.ts";
import { startPostgresCluster } from "../helpers/postgres-cluster.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";
import { startReceiver, verifyAt } from "../helpers/webhooks.ts";

// A cluster of our own (test/helpers/postgres-cluster.ts), whichever engine the project runs on:
// the copy's source is always a SQLite install.
interface Cluster {
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

async function startCluster(): Promise<Cluster> {
  const cluster = await startPostgresCluster();
  const admin = postgres(cluster.adminUrl, { max: 1, onnotice: () => {} });
  const url = (database: string) => {
    const address = new URL(cluster.adminUrl);
    address.pathname = `/${database}`;
    return address.href;
  };
  return {
    url,
    async createDatabase(name) {
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return url(name);
    },
    async stop() {
      await admin.end({ timeout: 1 });
      await cluster.stop();
    },
  };
}

const PASSWORD = "a long and known password";
const install = tempDir("crew-dbcopy-");
const sqliteUrl = `file:${join(install.dir, "crew.db")}`;
let cluster: Cluster;
let key = "";
let webhookSecret = "";
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const env = (extra: Record<string, string> = {}) => ({ DATABASE_URL: sqliteUrl, ALLOW_PRIVATE_TARGETS: "1", ...extra });

beforeAll(async () => {
  cluster = await startCluster();
  receiver = await startReceiver();
  // The SQLite install, made as an operator would: the CLI, no secret given (generated into data/).
  const created = await runCrew(["user", "create", "--email", "ada@example.com", "--password", PASSWORD, "--plan", "operator"], env());
  expect(created.stderr).toBe("");
  expect((await runCrew(["seed", "--demo"], env())).code).toBe(0);
  const madeKey = await runCrew(["key", "create", "--email", "ada@example.com", "--name", "laptop", "--scopes", "admin"], env());
  key = madeKey.stdout.trim();
  const hook = await runCrew(["webhook", "add", "--url", receiver.url, "--events", "action.created", "--json"], env());
  webhookSecret = JSON.parse(hook.stdout).secret;
  expect(key).toMatch(/^crew_/);
  expect(webhookSecret).toMatch(/^whsec_/);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await cluster?.stop();
  install.cleanup();
});

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of copyOrder(readSchema())) {
    out[table] = Number((await db.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n);
  }
  return out;
}

async function withStore<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openStore({ url });
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

describe("the copy order", () => {
  it("holds every table of schema.sql once, each after the tables its REFERENCES name", () => {
    const schema = readSchema();
    const order = copyOrder(schema);
    const declared = [...schema.matchAll(/CREATE TABLE IF NOT EXISTS (\w+) \(([\s\S]*?)\n\)/g)];
    expect(declared.length).toBeGreaterThan(40);
    expect([...order].sort()).toEqual(declared.map((m) => m[1]).sort());
    for (const [, table, body] of declared) {
      for (const [, referenced] of (body as string).matchAll(/REFERENCES (\w+)/g)) {
        expect(order.indexOf(referenced as string), `${table} → ${referenced}`).toBeLessThan(order.indexOf(table as string));
      }
    }
    expect(order.indexOf("organizations")).toBeLessThan(order.indexOf("users"));
    expect(order.indexOf("users")).toBeLessThan(order.indexOf("api_keys"));
  });
});

describe("crew db copy --to postgres://…", () => {
  let target = "";
  let server: SpawnedServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("copies the demo install; a server on PostgreSQL with the install's secret takes the same password, key and webhook secret", async () => {
    target = await cluster.createDatabase("crew_copy");
    const copied = await runCrew(["db", "copy", "--to", target], env());
    expect(copied.stderr).toBe("");
    expect(copied.code).toBe(0);
    const secretFile = join(install.dir, "crew-secret");
    expect(copied.stdout).toContain(
      `Set CREW_SECRET to the contents of ${secretFile} (or CREW_SECRET_FILE=${secretFile}) on every Crew process`,
    );
    const tables = readSchema().match(/^CREATE TABLE IF NOT EXISTS/gm)?.length;
    expect(copied.stdout).toMatch(new RegExp(`Every count matches: ${tables} tables, \\d+ rows\\.`));
    expect(copied.stdout).toMatch(/^ {2}actions +11 +11$/m);

    const before = await withStore(sqliteUrl, counts);
    const after = await withStore(target, counts);
    expect(after).toEqual(before);
    expect(before.agent_runs).toBeGreaterThan(30);
    expect(before.users).toBe(1);

    server = await spawnServer({ DATABASE_URL: target, CREW_SECRET: readFileSync(secretFile, "utf8").trim(), ALLOW_PRIVATE_TARGETS: "1" });
    const signIn = await fetch(`${server.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "ada@example.com", password: PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    const signedIn = (await signIn.json()) as { user: { email: string; plan: string } };
    expect(signedIn.user).toMatchObject({ email: "ada@example.com", plan: "operator" });
    // The session the sign-in opened lives in PostgreSQL: the cookie is recognised on the next request.
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const session = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    const wrong = await fetch(`${server.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "ada@example.com", password: "not the password" }),
    });
    expect(wrong.status).toBe(401);

    const agents = await fetch(`${server.url}/api/mcp/agents`, { headers: { authorization: `Bearer ${key}` } });
    expect(agents.status).toBe(200);
    expect(JSON.stringify(await agents.json())).toContain('"standup"');

    // The webhook's signing secret was sealed under the SQLite install's secret: the PostgreSQL
    // server opens it with the same CREW_SECRET and signs with the secret the CLI printed.
    const posted = await fetch(`${server.url}/api/mcp/actions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "after the move" }),
    });
    expect(posted.status).toBe(200);
    await receiver.received(1);
    const hit = receiver.hits[0];
    if (!hit) throw new Error("no delivery");
    expect(verifyAt(webhookSecret, hit, Date.now())).toMatchObject({ event: "action.created" });
    // Stopped here: the refusals below compare the target's counts before and after, with no writer.
    await server.stop();
  }, 120_000);

  it("refuses a target that holds a Crew database, naming why, and writes nothing", async () => {
    const before = await withStore(target, counts);
    const again = await runCrew(["db", "copy", "--to", target], env());
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(
      /^crew db copy: refused: the PostgreSQL database is not empty: it holds a Crew database \(schema version \d+; tables schema_meta, .*\)\..*; nothing was written\n$/,
    );
    expect(await withStore(target, counts)).toEqual(before);
  }, 60_000);

  it("refuses a target with any Crew table even without schema_meta, and creates nothing", async () => {
    const url = await cluster.createDatabase("crew_half");
    const tables = await withStore(url, async (db) => {
      await db.run("CREATE TABLE users (id TEXT PRIMARY KEY)");
      const refused = await runCliInProcess(["db", "copy", "--to", url], env({ LOG_LEVEL: "silent" }));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("it has Crew's tables users (without schema_meta");
      return db.all<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()");
    });
    expect(tables.map((t) => t.table_name)).toEqual(["users"]);
  }, 60_000);

  it("answers a target that is not PostgreSQL with a usage error", async () => {
    const result = await runCliInProcess(["db", "copy", "--to", "file:elsewhere.db"], env({ LOG_LEVEL: "silent" }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--to must be a postgres:// or postgresql:// URL");
  });
});

describe("copyDatabase", () => {
  it("copies every row and value alike in small chunks, composite keys and tables without a key included", async () => {
    const dir = tempDir("crew-dbcopy-chunks-");
    const url = `file:${join(dir.dir, "crew.db")}`;
    const { db: source, org } = await prepareDatabase(url, loadConfig({ DATABASE_URL: url }), Date.now());
    const target = await openStore({ url: await cluster.createDatabase("crew_chunks") });
    try {
      await seedDemo(source, org, Date.now());
      const awkward = `it's "quoted", back\\slash, tab\there\nnew line, ünïcödé 🚀, -- not a comment ?`;
      await source.run(
        `INSERT INTO actions (id, org_id, title, description, priority, priority_rank, status, source, type, lane, created_by, created_at, updated_at)
         SELECT 'act_awkward', org_id, ?, NULL, priority, priority_rank, status, source, type, lane, created_by, created_at, updated_at FROM actions LIMIT 1`,
        [awkward],
      );
      for (let i = 0; i < 9; i++)
        await source.run("INSERT INTO sign_in_failures (email, failed_at) VALUES (?, ?)", [`f${i}@example.com`, 1_700_000_000_000 + i]);
      const result = await copyDatabase(source, target, readSchema(), { chunkRows: 7 });
      expect(result.counts.filter((c) => c.source !== c.target)).toEqual([]);
      // Every row of every table, compared as sorted lists (the two engines' text collations may order differently).
      const rows = async (db: Db, table: string) =>
        (await db.all<Record<string, unknown>>(`SELECT * FROM ${table}`))
          .map((row) => JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))))
          .sort();
      for (const { table } of result.counts) expect(await rows(target, table), table).toEqual(await rows(source, table));
      expect((await target.one<{ title: string }>("SELECT title FROM actions WHERE id = 'act_awkward'"))?.title).toBe(awkward);
      expect(result.counts.find((c) => c.table === "demo_rows")?.source).toBeGreaterThan(7);
    } finally {
      source.close();
      target.close();
      dir.cleanup();
    }
  }, 60_000);

  it("removes what it wrote when a row cannot go in, leaving the target empty for the next attempt", async () => {
    const dir = tempDir("crew-dbcopy-orphan-");
    const file = join(dir.dir, "crew.db");
    const { db: source } = await prepareDatabase(`file:${file}`, loadConfig({ DATABASE_URL: `file:${file}` }), Date.now());
    const url = await cluster.createDatabase("crew_orphan");
    const target = await openStore({ url });
    try {
      // A row whose organization is missing: SQLite let it in with its foreign keys off; PostgreSQL always checks them.
      const raw = new Database(file);
      raw.exec("PRAGMA foreign_keys = OFF");
      raw
        .prepare(
          "INSERT INTO users (id, org_id, email, name, password_hash, created_at) VALUES ('usr_orphan', 'org_gone', 'o@example.com', 'O', 'x', 1)",
        )
        .run();
      raw.close();
      const failed = await copyDatabase(source, target, readSchema()).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(CopyFailed);
      expect(String((failed as Error).message)).toMatch(/^copying users: .*foreign key/);
      const left = await target.all("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()");
      expect(left).toEqual([]);
    } finally {
      source.close();
      target.close();
      dir.cleanup();
    }
  }, 60_000);
});

describe("crew backup and crew restore on PostgreSQL", () => {
  it("exit 1 with pg_dump and pg_restore advice, also where CREW_SECRET is not set", async () => {
    const url = cluster.url("postgres");
    for (const extra of [{}, { CREW_SECRET: "s".repeat(40) }] as Record<string, string>[]) {
      const backup = await runCliInProcess(["backup"], { DATABASE_URL: url, LOG_LEVEL: "silent", ...extra });
      expect(backup.code).toBe(1);
      expect(backup.stdout).toBe("");
      expect(backup.stderr).toContain(
        'crew backup: DATABASE_URL is PostgreSQL: back it up with PostgreSQL\'s own tools, e.g. pg_dump --format=custom --file crew.dump "$DATABASE_URL"',
      );
      expect(backup.stderr).toContain("pg_restore");
      const restore = await runCliInProcess(["restore", "crew.dump"], { DATABASE_URL: url, LOG_LEVEL: "silent", ...extra });
      expect(restore.code).toBe(1);
      expect(restore.stderr).toContain(
        "crew restore: DATABASE_URL is PostgreSQL: restore a pg_dump file with PostgreSQL's own tools, e.g. pg_restore",
      );
    }
  });
});
