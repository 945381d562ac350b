/**
 * Organizations are isolated (src/docs/notes/web-and-accounts.md), generated over the operation registry: two
 * organizations, each with the demo content, a webhook, an agent run in progress, an OAuth grant
 * and an API key. A member of organization B then calls every REST endpoint and every MCP tool
 * of the registry, with organization A's ids wherever an id goes, and loads every web page. No
 * answer may contain an id of A, an id of A must answer as unknown, and A's rows must be exactly
 * as they were. Events fan out to B's webhooks only.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { seedDemo } from "../../src/demo/seed.ts";
import { buildOpenApi } from "../../src/docs/openapi.ts";
import { exampleOf, type Resolver } from "../../src/docs/schema-view.ts";
import { operations } from "../../src/operations/index.ts";
import type { Operation } from "../../src/operations/registry.ts";
import type { User } from "../../src/store/auth/users.ts";
import { columnNames, tableNames } from "../../src/store/migrations.ts";
import { insertGrant } from "../../src/store/oauth/grants.ts";
import { createOrg, type Organization } from "../../src/store/orgs/orgs.ts";
import { startRun } from "../../src/store/runs/runs.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

const ID = /\b[a-z]{3}_[0-9A-HJKMNP-TV-Z]{26}\b/g;

interface Side {
  org: Organization;
  user: User;
  key: string;
  keyHash: string;
  tab: Browserish;
  ids: { action: string; contact: string; webhook: string; run: string; grant: string };
}

let s: TestServer;
let a: Side;
let b: Side;

/** Every row that belongs to the organization: tables with an org_id, and those hanging off its users. */
async function rowsOf(orgId: string): Promise<string[]> {
  const tables = await tableNames(s.db);
  const out: string[] = [];
  for (const table of tables) {
    const columns = await columnNames(s.db, table);
    let rows: unknown[] = [];
    // Audit rows are the one thing a member's own actions add to their organization; quota counts move.
    if (table === "audit_events" || table === "quota_windows") continue;
    if (columns.includes("org_id")) rows = await s.db.all(`SELECT * FROM ${table} WHERE org_id = ?`, [orgId]);
    else if (columns.includes("user_id"))
      rows = await s.db.all(`SELECT * FROM ${table} WHERE user_id IN (SELECT id FROM users WHERE org_id = ?)`, [orgId]);
    else if (table === "users" || table === "organizations")
      rows = await s.db.all(`SELECT * FROM ${table} WHERE ${table === "users" ? "org_id" : "id"} = ?`, [orgId]);
    out.push(...rows.map((r) => `${table} ${JSON.stringify(r)}`));
  }
  return out.sort();
}

async function side(org: Organization, label: string): Promise<Side> {
  const now = s.clock.now();
  await seedDemo(s.db, org, now);
  const user = await s.createUser("operator", `${label}-${org.id.toLowerCase()}@example.com`, "owner");
  await s.db.run("UPDATE users SET org_id = ? WHERE id = ?", [org.id, user.id]);
  const placed = { ...user, orgId: org.id };
  const key = await s.createKey(placed, ["admin"]);
  const keyHash = (await s.db.one<{ hash: string }>("SELECT hash FROM api_keys WHERE user_id = ?", [user.id]))?.hash ?? "";
  const tab = new Browserish(s.url);
  await tab.signIn(user.email);
  const hook = await fetch(`${s.url}/api/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:9/${label}`, events: ["action.created"] }),
  });
  const webhook = ((await hook.json()) as { id: string }).id;
  const run = `run_${"0".repeat(10)}${label.toUpperCase().padEnd(16, "0")}`.slice(0, 30);
  await startRun(s.db, { id: run, orgId: org.id, agentId: "sales", startedAt: now });
  const grant = `grt_${label.toUpperCase().padEnd(26, "0")}`;
  await insertGrant(
    s.db,
    { id: grant, clientId: "client", userId: user.id, scopes: ["crew:read"], resource: `${s.url}/mcp`, redirectUri: "http://127.0.0.1/cb" },
    now,
  );
  const one = async (sql: string) => (await s.db.one<{ id: string }>(sql, [org.id]))?.id ?? "";
  return {
    org,
    user: placed,
    key,
    keyHash,
    tab,
    ids: {
      action: await one("SELECT id FROM actions WHERE org_id = ? LIMIT 1"),
      contact: await one("SELECT id FROM contacts WHERE org_id = ? LIMIT 1"),
      webhook,
      run,
      grant,
    },
  };
}

/** Ids of A, found anywhere in A's rows: none may appear in what B sees. */
let idsOfA: Set<string>;
let before: string[];

beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "1000000" } });
  a = await side(s.org, "a");
  b = await side(await createOrg(s.db, "Organization B", "Europe/Paris", s.clock.now()), "b");
  before = await rowsOf(a.org.id);
  idsOfA = new Set(before.flatMap((row) => row.match(ID) ?? []));
  expect(idsOfA.size).toBeGreaterThan(50);
  // B's demo seed left A's demo content in place (it once replaced every organization's).
  expect(before.filter((row) => row.startsWith("actions ")).length).toBeGreaterThan(5);
}, 60_000);

afterAll(() => s.close());

/** A's ids in an answer, apart from those B sent in its own request (an error may name what it was given). */
const leaked = (text: string, sent = "") => [...new Set(text.match(ID) ?? [])].filter((id) => idsOfA.has(id) && !sent.includes(id));

/** Example input for an operation, with A's ids wherever an id goes. */
function inputFor(schema: unknown, resolve: Resolver): Record<string, unknown> {
  const example = (exampleOf((schema ?? {}) as never, resolve) ?? {}) as Record<string, unknown>;
  const withIds: Record<string, unknown> = { ...example };
  for (const name of Object.keys(withIds)) {
    if (name === "contactId") withIds[name] = a.ids.contact;
    if (name === "hash") withIds[name] = a.keyHash;
  }
  return withIds;
}

function pathFor(path: string): string {
  return path
    .replace("/api/mcp/actions/{id}", `/api/mcp/actions/${a.ids.action}`)
    .replace("/api/webhooks/{id}", `/api/webhooks/${a.ids.webhook}`)
    .replace("/api/agents/{id}", "/api/agents/sales")
    .replace("{runId}", a.ids.run);
}

describe("two organizations", () => {
  it("every REST endpoint of the registry: B never sees A's records, A's ids are unknown to B", async () => {
    const doc = buildOpenApi({ baseUrl: s.url, rateLimitPerHour: 600 }, operations);
    const resolve: Resolver = (ref) =>
      ref
        .replace(/^#\//, "")
        .split("/")
        .reduce<any>((node, key) => node?.[key], doc);
    const rest = operations.filter((op): op is Operation & { rest: NonNullable<Operation["rest"]> } => Boolean(op.rest));
    expect(rest.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const op of rest) {
      const { method, path, auth, from } = op.rest;
      const openapiOp = (doc.paths as any)[path]?.[method.toLowerCase()];
      const bodySchema = openapiOp?.requestBody?.content?.["application/json"]?.schema;
      const queryParams = ((openapiOp?.parameters ?? []) as { name: string; in: string; required?: boolean; schema: unknown }[]).filter(
        (p) => p.in === "query",
      );
      let url = pathFor(path);
      let body: string | undefined;
      if (from === "body" && bodySchema) body = JSON.stringify(inputFor(bodySchema, resolve));
      if (from === "query") {
        const query = new URLSearchParams();
        for (const p of queryParams) {
          if (!p.required && !["id", "hash"].includes(p.name)) continue;
          const value = p.name === "id" ? a.ids.grant : p.name === "hash" ? a.keyHash : String(exampleOf(p.schema as never, resolve));
          query.set(p.name, value);
        }
        if ([...query].length > 0) url += `?${query}`;
      }
      const res =
        auth === "session"
          ? await b.tab.request(url, { method, ...(body ? { json: JSON.parse(body) } : {}) })
          : await fetch(`${s.url}${url}`, {
              method,
              headers: { authorization: `Bearer ${b.key}`, ...(body ? { "content-type": "application/json" } : {}) },
              body,
            }).then(async (r) => ({ status: r.status, text: await r.text() }));
      const label = `${method} ${path} → ${res.status}`;
      if (res.status >= 500) problems.push(`${label}: server error`);
      const seen = leaked(res.text, `${url} ${body ?? ""}`);
      if (seen.length) problems.push(`${label}: shows ${seen.join(", ")}`);
      // Addressing one of A's records by id answers as unknown.
      const addressesA =
        url.includes(a.ids.action) ||
        url.includes(a.ids.webhook) ||
        url.includes(a.ids.run) ||
        url.includes(a.ids.grant) ||
        url.includes(a.keyHash);
      if (addressesA && res.status !== 404) problems.push(`${label}: A's id answered ${res.status}, not 404`);
    }
    expect(problems).toEqual([]);
    expect(await rowsOf(a.org.id)).toEqual(before);
  }, 60_000);

  it("every MCP tool: B's calls with A's ids show nothing of A and change nothing of A", async () => {
    const client = await connectHttp(s.url, b.key);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(8);
      const problems: string[] = [];
      for (const tool of tools as Tool[]) {
        const args = inputFor(tool.inputSchema, () => undefined);
        for (const name of Object.keys((tool.inputSchema.properties ?? {}) as object)) {
          if (name === "id") args.id = a.ids.action;
          if (name === "contactId") args.contactId = a.ids.contact;
        }
        const result = await client.callTool({ name: tool.name, arguments: args });
        const text = JSON.stringify(result);
        const seen = leaked(text, JSON.stringify(args));
        if (seen.length) problems.push(`${tool.name}: shows ${seen.join(", ")}`);
        if (args.id === a.ids.action && !result.isError) problems.push(`${tool.name}: A's action id did not answer as unknown`);
      }
      expect(problems).toEqual([]);
    } finally {
      await client.close();
    }
    expect(await rowsOf(a.org.id)).toEqual(before);
  }, 60_000);

  it("every web page without a parameter: B's session sees nothing of A", async () => {
    const app = createApp(s.deps);
    const pages = [
      ...new Set(app.routes.filter((r) => r.method === "GET" && !r.path.includes(":") && !r.path.includes("*")).map((r) => r.path)),
    ];
    expect(pages).toContain("/dashboard");
    const problems: string[] = [];
    for (const page of pages) {
      const res = await b.tab.request(page);
      if (res.status >= 500) problems.push(`${page}: ${res.status}`);
      const seen = leaked(res.text);
      if (seen.length) problems.push(`${page}: shows ${seen.join(", ")}`);
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it("events and webhooks: an action created in B is queued for B's webhook only", async () => {
    const count = async (webhook: string) =>
      (await s.db.one<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?", [webhook]))?.n ?? 0;
    const [beforeA, beforeB] = [await count(a.ids.webhook), await count(b.ids.webhook)];
    const res = await fetch(`${s.url}/api/mcp/actions`, {
      method: "POST",
      headers: { authorization: `Bearer ${b.key}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Only for B" }),
    });
    expect(res.status).toBe(200);
    expect(await count(b.ids.webhook)).toBe(beforeB + 1);
    expect(await count(a.ids.webhook)).toBe(beforeA);
  });
});
