/**
 * Two server processes on one database, eight writers at once, each its own user adding actions
 * (src/docs/notes/postgres.md#writes-without-a-global-lock): every write is stored once, and on
 * PostgreSQL no write waits for a lock that another writer's unrelated write holds. The locks are
 * sampled from `pg_locks` while the writers run: no advisory lock is taken at all, and the only
 * lock ever waited for is a row of the same user's briefing, which the regenerations after that
 * user's own writes replace one after another (related writes, not another writer's).
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config.ts";
import { insertApiKey } from "../../src/store/auth/api-keys.ts";
import { createUser } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { databaseEnv, TEST_ENGINE, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir, testPasswordHash } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

const WRITERS = 8;
const EACH = 15;

const temp = tempDir("crew-many-writers-");
let dbUrl: string;
let db: Db;
let keys: string[] = [];
let servers: SpawnedServer[] = [];

beforeAll(async () => {
  dbUrl = await testDatabaseUrl(temp.dir);
  const env = databaseEnv(dbUrl);
  const prepared = await prepareDatabase(dbUrl, loadConfig(env), Date.now());
  db = prepared.db;
  const passwordHash = await testPasswordHash();
  keys = await Promise.all(
    Array.from({ length: WRITERS }, async (_, i) => {
      const user = await createUser(
        db,
        { orgId: prepared.org.id, email: `writer${i}@example.com`, name: `Writer ${i}`, passwordHash, plan: "operator" },
        Date.now(),
      );
      const { key, hash } = generateApiKey();
      await insertApiKey(db, { hash, userId: user.id, name: "writer", scopes: ["admin"] }, Date.now());
      return key;
    }),
  );
  const shared = { ...env, CREW_SECRET: "many-writers-secret-many-writers-secret", LOG_LEVEL: "silent" };
  servers = await Promise.all([spawnServer(shared), spawnServer(shared)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  db?.close();
  temp.cleanup();
});

interface Sample {
  locktype: string;
  mode: string;
  granted: boolean;
  /** The statement holding or waiting for it, and what holds the lock it waits for. */
  query: string;
  blocker: string | null;
}

/** Samples the database's locks (other than the sampler's own) until `done` settles. */
async function sampleLocks(url: string, done: Promise<unknown>): Promise<{ samples: number; seen: Sample[] }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const seen: Sample[] = [];
  let samples = 0;
  try {
    while (!finished) {
      const rows = await sql<Sample[]>`
        SELECT l.locktype, l.mode, l.granted, left(a.query, 200) AS query,
               (SELECT string_agg(left(b.query, 200), ' | ') FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid))) AS blocker
          FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE a.datname = current_database() AND l.pid <> pg_backend_pid()
           AND (l.locktype = 'advisory' OR NOT l.granted)`;
      seen.push(...rows);
      samples++;
    }
  } finally {
    await sql.end({ timeout: 1 });
  }
  return { samples, seen };
}

describe(`eight writers on two processes (${TEST_ENGINE})`, () => {
  it(`stores each of ${WRITERS * EACH} writes once, and waits for no lock another writer holds`, async () => {
    const writes = Promise.all(
      keys.map(async (key, writer) => {
        const server = servers[writer % 2] as SpawnedServer;
        const statuses: number[] = [];
        for (let i = 0; i < EACH; i++) {
          const res = await fetch(`${server.url}/api/mcp/actions`, {
            method: "POST",
            headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
            body: JSON.stringify({ title: `writer ${writer} write ${i}`, priority: "medium" }),
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        return statuses;
      }),
    );
    const locks = TEST_ENGINE === "postgres" ? await sampleLocks(dbUrl, writes) : null;
    const statuses = (await writes).flat();
    expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([]);

    const rows = await db.all<{ title: string; n: number }>("SELECT title, count(*) AS n FROM actions GROUP BY title");
    expect(rows).toHaveLength(WRITERS * EACH);
    expect(rows.every((r) => r.n === 1)).toBe(true);

    if (locks) {
      expect(locks.samples).toBeGreaterThan(10);
      // No cluster-wide write lock: not one advisory lock held or waited for.
      expect(locks.seen.filter((l) => l.locktype === "advisory")).toEqual([]);
      // Unrelated writes share no row. What waits is a regeneration of a user's briefing for the
      // same user's briefing (a relation extension lock, two inserts growing one table's file at
      // the same instant, is no one's row).
      const waits = locks.seen.filter((l) => !l.granted && l.locktype !== "extend");
      expect(waits.filter((l) => !/^DELETE FROM briefings WHERE user_id = /.test(l.query))).toEqual([]);
    }
  }, 60_000);
});
