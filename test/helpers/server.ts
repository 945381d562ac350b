/**
 * A real Crew on loopback for tests: a fresh database (a file in a temp dir, or a database on the
 * run's PostgreSQL cluster: test/helpers/database.ts), the schema, the default organization, and an
 * HTTP server on an ephemeral port serving createApp's fetch.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createApp } from "../../src/app.ts";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { hashPassword } from "../../src/auth/passwords.ts";
import { readNotes, readSchema } from "../../src/boot.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { AppDeps } from "../../src/deps.ts";
import type { KeyScope, Plan, Role } from "../../src/domain.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { type Logger, silentLogger } from "../../src/lib/log.ts";
import { outboundPolicy } from "../../src/outbound-connector.ts";
import { resolveDeps } from "../../src/resolve-deps.ts";
import { insertApiKey } from "../../src/store/auth/api-keys.ts";
import { createUser, type User } from "../../src/store/auth/users.ts";
import { type Db, openStore } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrations.ts";
import { ensureDefaultOrgAndAgents, type Organization } from "../../src/store/orgs/orgs.ts";
import { assertContract } from "./contract.ts";
import { TEST_SECRET, testDatabaseUrl } from "./database.ts";

export const TEST_PASSWORD = "correct horse battery staple";
let passwordHash: Promise<string> | null = null;
/** Hashing at 600,000 iterations is slow by design: tests share one hash of TEST_PASSWORD. */
export const testPasswordHash = () => (passwordHash ??= hashPassword(TEST_PASSWORD));

export function tempDir(prefix = "crew-test-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function prepareDatabase(url: string, config: Config, now: number): Promise<{ db: Db; org: Organization }> {
  const db = await openStore({ url });
  await migrate(db, readSchema());
  const org = await ensureDefaultOrgAndAgents(db, config.defaultTimeZone, now);
  return { db, org };
}

export interface TestServer {
  url: string;
  db: Db;
  deps: AppDeps;
  org: Organization;
  clock: ManualClock;
  config: Config;
  dir: string;
  createUser(plan?: Plan, email?: string, role?: Role): Promise<User>;
  createKey(user: User, scopes: KeyScope[], name?: string): Promise<string>;
  /** An owner on `plan` with one key of `scopes`: the usual start of a test (members are refused owner-only operations). */
  userWithKey(plan: Plan, scopes: KeyScope[]): Promise<{ user: User; key: string }>;
  close(): Promise<void>;
}

let emailCounter = 0;

export interface ServerOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  log?: Logger;
  /** What the app's requests see of the store (e.g. test/helpers/store.ts: each statement after a turn of the event loop, as over a network). */
  store?: (db: Db) => Db;
}

export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const { dir, cleanup } = tempDir();
  const clock = options.clock ?? new ManualClock();
  const dbUrl = await testDatabaseUrl(dir);
  // Bind first to learn the port, so BASE_URL can name it.
  let app: ReturnType<typeof createApp> | null = null;
  const server = serve({
    // Pass the connection info on: per-address limits (OAuth registration) read the peer address.
    fetch: (req, env) => (app ? app.fetch(req, env) : new Response("starting", { status: 503 })),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig({
    BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: dbUrl,
    CREW_SECRET: TEST_SECRET,
    WEBHOOK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "silent",
    ...options.env,
  });
  const { db, org } = await prepareDatabase(dbUrl, config, clock.now());
  // Aborted first by close(), as the entries do at shutdown (long-lived streams end).
  const stopping = new AbortController();
  // The server's own outbound policy (node:dns, pinned connector), as boot() gives it.
  const deps = resolveDeps({
    stopping: stopping.signal,
    db: options.store ? options.store(db) : db,
    config,
    clock,
    log: options.log ?? silentLogger,
    outbound: outboundPolicy(config.allowPrivateTargets),
    notes: readNotes(),
  });
  app = createApp(deps);

  const make = async (plan: Plan = "operator", email?: string, role: Role = "member") =>
    createUser(
      db,
      {
        orgId: org.id,
        email: email ?? `user${++emailCounter}-${port}@example.com`,
        name: `Test User ${emailCounter}`,
        passwordHash: await testPasswordHash(),
        plan,
        role,
      },
      clock.now(),
    );
  const createKey = async (user: User, scopes: KeyScope[], name = "test key") => {
    const { key, hash } = generateApiKey();
    await insertApiKey(db, { hash, userId: user.id, name, scopes }, clock.now());
    return key;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    deps,
    org,
    clock,
    config,
    dir,
    createUser: make,
    createKey,
    async userWithKey(plan, scopes) {
      const user = await make(plan, undefined, "owner");
      return { user, key: await createKey(user, scopes) };
    },
    async close() {
      stopping.abort();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
      cleanup();
    },
  };
}

/**
 * fetch with a Bearer credential and, for objects, a JSON body. Every response is checked against
 * the OpenAPI document (test/helpers/contract.ts): a mismatch fails the calling test. Pass
 * `{ contract: false }` only for a response that is off-contract on purpose.
 */
export function api(base: string, key?: string, options: { contract?: boolean } = {}) {
  return async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (key) headers.Authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
      headers["Content-Type"] ??= "application/json";
    }
    const method = init.method ?? (body ? "POST" : "GET");
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    if (options.contract !== false) assertContract(method, base + path, { status: res.status, headers: res.headers, text });
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, json, text };
  };
}
