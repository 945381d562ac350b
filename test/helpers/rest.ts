/**
 * Helpers for the REST acceptance tests (test/rest/): the endpoint table the scope matrix and the
 * bad-input run are generated from, the error-envelope assertion of src/docs/notes/rest-api.md, fast users and keys,
 * a server-and-client fixture per describe block, seeding of agent output through the store's
 * statement builders, and a whole-database snapshot.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import type { KeyScope, Plan, Priority, Role } from "../../src/domain.ts";
import { HOUR } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/random.ts";
import { type ActionInsert, actionInsertStatement } from "../../src/store/actions/actions.ts";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { insertApiKey } from "../../src/store/auth/api-keys.ts";
import { createUser, type User } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { alertInsertStatement } from "../../src/store/integrations/alerts.ts";
import { tableNames } from "../../src/store/migrations.ts";
import { profileInsertStatement, standupInsertStatement } from "../../src/store/reports/reports.ts";
import { runInsertStatement } from "../../src/store/runs/runs.ts";
import { api, startServer, type TestServer } from "./server.ts";

export type Call = ReturnType<typeof api>;
export type Reply = Awaited<ReturnType<Call>>;

// ---------------------------------------------------------------------------------------------
// Users and keys without the 600,000-iteration password hash: these users never sign in.

let userCounter = 0;

/** An owner unless `role` says member: owner-only operations refuse members on every door. */
export async function fastUser(s: TestServer, plan: Plan = "operator", orgId = s.org.id, role: Role = "owner"): Promise<User> {
  userCounter += 1;
  return createUser(
    s.db,
    {
      orgId,
      email: `rest${userCounter}-${process.pid}@example.com`,
      name: `Rest User ${userCounter}`,
      passwordHash: "unusable",
      plan,
      role,
    },
    s.clock.now(),
  );
}

export async function fastKey(s: TestServer, user: User, scopes: KeyScope[]): Promise<string> {
  const { key, hash } = generateApiKey();
  await insertApiKey(s.db, { hash, userId: user.id, name: `key ${scopes.join(",")}`, scopes }, s.clock.now());
  return key;
}

/** A user on `plan` with one key of `scopes`, and a caller for it. */
export async function client(s: TestServer, plan: Plan, scopes: KeyScope[]) {
  const user = await fastUser(s, plan);
  const key = await fastKey(s, user, scopes);
  return { user, key, call: api(s.url, key) };
}

export interface ServerWithClient {
  s: TestServer;
  userId: string;
  key: string;
  call: Call;
}

/**
 * Registers beforeAll/afterAll in the calling describe block (or file): a fresh server and database,
 * and on it one client of `plan` and `scopes`, handed to `use` before the block's tests run.
 */
export function serverWithClient(plan: Plan, scopes: KeyScope[], use: (fixture: ServerWithClient) => void): void {
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startServer();
    const { user, key, call } = await client(s, plan, scopes);
    use({ s, userId: user.id, key, call });
  });
  afterAll(() => s?.close());
}

/** A second organization (no store function creates one yet besides the default): for isolation tests. */
export async function otherOrg(s: TestServer): Promise<string> {
  const id = newId("org", s.clock.now());
  await s.db.execute({
    sql: "INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES (?, 'Other', 'UTC', 0, ?)",
    args: [id, s.clock.now()],
  });
  return id;
}

// ---------------------------------------------------------------------------------------------
// The endpoint table of src/docs/notes/access.md (REST). `scopes` are the key scopes that pass; `required` is the
// narrowest one, named in `required_scope` when a key lacks it.

export interface Endpoint {
  method: "GET" | "POST" | "PATCH";
  /** `{id}` is replaced by an existing action id. */
  path: string;
  /** A valid body (writes) that succeeds. */
  body?: unknown;
  tier: "read" | "write";
  scopes: KeyScope[];
  required: KeyScope;
}

export const ENDPOINTS: Endpoint[] = [
  { method: "GET", path: "/api/mcp/agents", tier: "read", scopes: ["agents", "read", "admin"], required: "agents" },
  { method: "GET", path: "/api/mcp/briefing", tier: "read", scopes: ["briefing", "read", "admin"], required: "briefing" },
  { method: "GET", path: "/api/mcp/standup", tier: "read", scopes: ["read", "admin"], required: "read" },
  { method: "GET", path: "/api/mcp/suggestions", tier: "read", scopes: ["read", "admin"], required: "read" },
  { method: "GET", path: "/api/mcp/dna", tier: "read", scopes: ["read", "admin"], required: "read" },
  // The action queue is a read endpoint (src/docs/notes/access.md "every read endpoint except the action queue") that only admin keys reach.
  { method: "GET", path: "/api/mcp/actions", tier: "read", scopes: ["admin"], required: "admin" },
  { method: "POST", path: "/api/mcp/actions", body: { title: "Matrix action" }, tier: "write", scopes: ["admin"], required: "admin" },
  { method: "PATCH", path: "/api/mcp/actions/{id}", body: { status: "approved" }, tier: "write", scopes: ["admin"], required: "admin" },
  { method: "POST", path: "/api/mcp/contacts", body: { name: "Matrix Contact" }, tier: "write", scopes: ["admin"], required: "admin" },
  {
    method: "POST",
    path: "/api/mcp/handoffs",
    body: { from: "manual", to: "sales", title: "Matrix handoff" },
    tier: "write",
    scopes: ["admin"],
    required: "admin",
  },
  { method: "POST", path: "/api/mcp/feed", body: { title: "Matrix insight" }, tier: "write", scopes: ["admin"], required: "admin" },
];

export const KEY_SCOPE_LIST: KeyScope[] = ["admin", "read", "briefing", "agents"];

export const label = (e: Endpoint) => `${e.method} ${e.path}`;

// ---------------------------------------------------------------------------------------------
// The error envelope of src/docs/notes/rest-api.md.

const ENVELOPE_KEYS = new Set(["error", "message", "request_id", "docs_url", "auth_url", "required_scope", "issues"]);

export const CODES_BY_STATUS: Record<number, string[]> = {
  400: ["invalid_request"],
  401: ["unauthorized", "invalid_token"],
  403: ["insufficient_scope", "plan_upgrade_required"],
  404: ["not_found"],
  405: ["method_not_allowed"],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  429: ["rate_limited"],
  500: ["internal_error"],
};

/** Problems with a reply as an error envelope (empty when it is a correct one); usable in bulk. */
export function envelopeProblems(res: Reply, base: string): string[] {
  const problems: string[] = [];
  const body = res.json;
  if (res.status >= 500) problems.push(`status ${res.status}`);
  if (!(res.headers.get("content-type") ?? "").startsWith("application/json")) problems.push("content-type not JSON");
  if (res.headers.get("api-version") !== "1.0.0") problems.push("no API-Version");
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return [...problems, `body not an object: ${res.text.slice(0, 80)}`];
  for (const k of Object.keys(body)) if (!ENVELOPE_KEYS.has(k)) problems.push(`unexpected key ${k}`);
  const codes = CODES_BY_STATUS[res.status];
  if (!codes?.includes(body.error)) problems.push(`error ${body.error} for status ${res.status}`);
  if (typeof body.message !== "string" || body.message.length === 0) problems.push("no message");
  if (typeof body.request_id !== "string" || body.request_id !== res.headers.get("x-request-id"))
    problems.push("request_id ≠ X-Request-Id");
  if (body.docs_url !== `${base}/docs/errors#${body.error}`) problems.push(`docs_url ${body.docs_url}`);
  const authError = res.status === 401 || res.status === 403;
  if (authError && body.auth_url !== `${base}/.well-known/oauth-authorization-server`) problems.push("auth_url missing");
  if (!authError && "auth_url" in body) problems.push("auth_url on a non-auth error");
  if (res.status === 400) {
    const ok =
      Array.isArray(body.issues) &&
      body.issues.length > 0 &&
      body.issues.every((i: any) => typeof i?.path === "string" && typeof i?.message === "string" && Object.keys(i).length === 2);
    if (!ok) problems.push("400 without issues [{path, message}]");
  } else if ("issues" in body) problems.push("issues on a non-400");
  if ((body.error === "insufficient_scope") !== (typeof body.required_scope === "string")) problems.push("required_scope mismatch");
  return problems;
}

/** Asserts an exact error: status, code, and a well-formed envelope. Returns the body. */
export function expectError(res: Reply, base: string, status: number, code: string): any {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status, error: code });
  expect(envelopeProblems(res, base)).toEqual([]);
  return res.json;
}

export function expectRateHeaders(res: Reply, limit: number): void {
  expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
  expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d{10}$/);
}

// ---------------------------------------------------------------------------------------------
// Seeding agent output with the store's statement builders (what the runs API would write).

export async function seedRun(
  s: TestServer,
  agentId: string,
  status: "ok" | "error" | "running",
  finishedAt: number | null,
  extra: { summary?: string; error?: string; hasData?: boolean; metrics?: { dau: number; wau: number; mrr: number } } = {},
): Promise<string> {
  const id = newId("run", finishedAt ?? s.clock.now());
  await s.db.execute(
    runInsertStatement({
      id,
      orgId: s.org.id,
      agentId,
      status,
      summary: extra.summary ?? null,
      error: extra.error ?? null,
      metrics: extra.metrics ?? null,
      hasData: extra.hasData ?? status === "ok",
      startedAt: (finishedAt ?? s.clock.now()) - 60_000,
      finishedAt,
    }),
  );
  return id;
}

export async function seedStandup(s: TestServer, mode: "morning" | "evening", generatedAt: number, briefing: string): Promise<string> {
  const id = newId("std", generatedAt);
  const body = {
    briefing,
    agentStatuses: [{ name: "Sales", status: "green", headline: "3 deals moved" }],
    metrics: { dau: 120, wau: 640, mrr: 15400.5 },
    interventions: [
      { title: "Approve the Acme contract", priority: "critical", agent: "sales" },
      { title: "Slack token expired", priority: "high", agent: "slack" },
    ],
  };
  await s.db.execute(standupInsertStatement({ id, orgId: s.org.id, mode, generatedAt, body }));
  return id;
}

export async function seedProfile(s: TestServer, generatedAt: number, body: unknown): Promise<void> {
  await s.db.execute(profileInsertStatement({ id: newId("dna", generatedAt), orgId: s.org.id, runId: null, generatedAt, body }));
}

export async function seedSuggestion(s: TestServer, agentId: string, title: string, priority: Priority, createdAt: number): Promise<void> {
  await s.db.execute(
    suggestionInsertStatement({
      id: newId("sug", createdAt),
      orgId: s.org.id,
      agentId,
      runId: null,
      title,
      detail: `Why: ${title}`,
      priority,
      createdAt,
    }),
  );
}

export async function seedAlert(
  s: TestServer,
  service: string,
  severity: "critical" | "warning",
  flaggedAt: number,
  userId: string | null = null,
): Promise<void> {
  await s.db.execute(
    alertInsertStatement({
      id: newId("alr", flaggedAt),
      orgId: s.org.id,
      userId,
      service,
      severity,
      message: `${service} needs attention`,
      flaggedAt,
    }),
  );
}

/** A stored action's row with plain defaults (a medium-priority pending task), overridden by `a`. */
export function actionRow(orgId: string, createdBy: string, createdAt: number, a: Partial<ActionInsert> = {}): ActionInsert {
  return {
    id: newId("act", createdAt),
    orgId,
    title: "Action",
    description: null,
    priority: "medium" as Priority,
    category: null,
    status: "pending",
    source: "api",
    type: "task",
    lane: "this_week",
    contactId: null,
    dealId: null,
    createdBy,
    ...a,
    createdAt,
  };
}

/** Actions written straight to the store (no events fire, so nothing regenerates behind the test's back). */
export async function seedActions(
  s: TestServer,
  createdBy: string,
  items: Partial<ActionInsert>[],
  orgId = s.org.id,
): Promise<ActionInsert[]> {
  const rows = items.map((a, i) =>
    actionRow(orgId, createdBy, a.createdAt ?? s.clock.now() - (items.length - i) * 1000, { title: `Action ${i}`, ...a }),
  );
  if (rows.length > 0) await s.db.batch(rows.map(actionInsertStatement), "write");
  return rows;
}

export const hoursAgo = (s: TestServer, hours: number) => s.clock.now() - hours * HOUR;

// ---------------------------------------------------------------------------------------------
// The whole database, table by table, as sorted JSON rows: "stored data unchanged" compares two.

export async function snapshot(db: Db, skip: string[] = ["quota_windows"]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of await tableNames(db)) {
    if (skip.includes(name)) continue;
    const rows = await db.execute(`SELECT * FROM "${name}"`);
    out[name] = rows.rows.map((r) => JSON.stringify(Object.entries(r))).sort();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness for generated inputs (mulberry32).

export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}

/** Runs async jobs with at most `width` in flight, results in input order. */
export async function pool<T, R>(items: T[], width: number, job: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
