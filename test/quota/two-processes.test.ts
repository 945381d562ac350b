/**
 * src/docs/notes/rest-api.md: the quota lives in the database, so two server processes on one database share one
 * exact count. 45 concurrent requests split between two processes with a limit of 30: exactly 30
 * succeed and 15 are refused with 429, whichever process they reach (on either engine).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config.ts";
import { HOUR } from "../../src/lib/clock.ts";
import { insertApiKey } from "../../src/store/auth/api-keys.ts";
import { createUser } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { databaseEnv, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir, testPasswordHash } from "../helpers/server.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";

const LIMIT = 30;
const REQUESTS = 45;

const temp = tempDir("crew-quota-");
let db: Db;
let key: string;
let userId: string;
let servers: SpawnedServer[] = [];

beforeAll(async () => {
  const dbUrl = await testDatabaseUrl(temp.dir);
  const config = loadConfig(databaseEnv(dbUrl));
  const prepared = await prepareDatabase(dbUrl, config, Date.now());
  db = prepared.db;
  const user = await createUser(
    db,
    {
      orgId: prepared.org.id,
      email: "two-processes@example.com",
      name: "Two Processes",
      passwordHash: await testPasswordHash(),
      plan: "operator",
    },
    Date.now(),
  );
  userId = user.id;
  const generated = generateApiKey();
  await insertApiKey(db, { hash: generated.hash, userId, name: "shared", scopes: ["admin"] }, Date.now());
  key = generated.key;
  const env = {
    DATABASE_URL: dbUrl,
    RATE_LIMIT_PER_HOUR: String(LIMIT),
    LOG_LEVEL: "silent",
    CREW_SECRET: "two-processes-secret-two-processes-secret",
  };
  servers = await Promise.all([spawnServer(env), spawnServer(env)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  db?.close();
  temp.cleanup();
});

describe("quota across two processes on one database", () => {
  it(`admits exactly the limit of ${LIMIT} of ${REQUESTS} concurrent requests and refuses the rest with 429`, async () => {
    // The servers use the real clock: keep the burst inside one hourly window.
    const toNextHour = HOUR - (Date.now() % HOUR);
    if (toNextHour < 10_000) await new Promise((resolve) => setTimeout(resolve, toNextHour + 100));

    const responses = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const server = servers[i % 2] as SpawnedServer;
        const res = await fetch(`${server.url}/api/mcp/agents`, { headers: { Authorization: `Bearer ${key}` } });
        return { server: i % 2, status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
      }),
    );

    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(LIMIT);
    expect(refused).toHaveLength(REQUESTS - LIMIT);
    // Both processes served some: the count really was shared, not one process doing all the work.
    expect(new Set(ok.map((r) => r.server)).size).toBe(2);

    // Each unit of the quota was handed out exactly once: the successes' Remaining are 29…0.
    const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const r of ok) expect(r.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));

    const reset = Math.ceil((Math.floor(Date.now() / HOUR) * HOUR + HOUR) / 1000);
    for (const r of refused) {
      expect(r.json.error).toBe("rate_limited");
      expect(r.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(r.headers.get("x-ratelimit-reset")).toBe(String(reset));
      const retryAfter = Number(r.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }

    // The stored count is the limit: refused requests took nothing.
    const row = await db.execute({ sql: "SELECT sum(used) AS used FROM quota_windows WHERE user_id = ?", args: [userId] });
    expect(Number(row.rows[0]?.used)).toBe(LIMIT);
  }, 30_000);
});
