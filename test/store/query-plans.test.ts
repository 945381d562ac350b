/**
 * Issue 10 item 1: every list and hot query answers from an index in the order it returns. The
 * test records every statement text the store prepares while a real server serves the hot paths
 * (REST reads and writes, MCP tool calls, regeneration, scheduler, retention), then asks SQLite
 * for each one's plan (EXPLAIN QUERY PLAN) on the same database. A plan that sorts (USE TEMP
 * B-TREE) or scans a table that grows with use fails, unless the statement is in ALLOWED with the
 * reason why its input stays small.
 */
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR } from "../../src/lib/clock.ts";
import { listAudit, listBackupEvents } from "../../src/store/audit/audit.ts";
import { recentContacts } from "../../src/store/contacts/contacts.ts";
import { listHandoffs } from "../../src/store/feed/handoffs.ts";
import { listRecentInsights } from "../../src/store/feed/insights.ts";
import { runRetention } from "../../src/store/retention.ts";
import { type AgentsFixture, agentsServer } from "../helpers/agents.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { client, type Reply, seedRun } from "../helpers/rest.ts";

/** Tables that stay small (per organization or per process); a scan of any other table, or alias, fails. */
const SMALL = new Set(["organizations", "leases", "schema_meta", "setup_tokens", "sqlite_master", "schedule_slots", "demo_rows"]);

/** Statements allowed to sort or scan, by a fragment of their text, with the reason. */
const ALLOWED: { fragment: string; why: string }[] = [
  { fragment: "ORDER BY severity = 'critical' DESC", why: "sorts the open alerts only (partial index integration_alerts_open)" },
  { fragment: "a.resolved_at IS NULL AND a.severity = 'critical'", why: "sorts the open alerts only (partial index)" },
  { fragment: "ORDER BY CASE impact", why: "the feed's impact order over the insights of a bounded time window (insights_feed range)" },
  { fragment: "GROUP BY company ORDER BY", why: "the dna agent's once-per-run company ranking, not a request path" },
  { fragment: "GROUP BY type", why: "the dna agent's insight counts over a bounded time window (insights_feed range)" },
  { fragment: "FROM agents a JOIN organizations o", why: "the scheduler's list of scheduled agents, 17 per organization, once per tick" },
  { fragment: "EXISTS (SELECT 1 FROM users)", why: "reads at most one row: whether any account exists" },
  { fragment: "FROM schema_meta", why: "a handful of rows" },
  { fragment: "sqlite_master", why: "schema lookup" },
];

const recorded = new Set<string>();
const prepare = Database.prototype.prepare;

let f: AgentsFixture;
beforeAll(async () => {
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    recorded.add(sql);
    return prepare.call(this, sql);
  } as typeof prepare;
  f = await agentsServer();
});
afterAll(async () => {
  Database.prototype.prepare = prepare;
  await f?.close();
});

async function ok(reply: Promise<Reply>): Promise<Reply> {
  const res = await reply;
  expect(res.status, res.text).toBeLessThan(300);
  return res;
}

function plan(sql: string): string[] {
  const conn = new Database(f.s.dir + "/crew.db");
  try {
    return (prepare.call(conn, `EXPLAIN QUERY PLAN ${sql}`).all([]) as { detail: string }[]).map((r) => r.detail);
  } finally {
    conn.close();
  }
}

function problems(sql: string): string[] {
  if (!/^\s*(SELECT|UPDATE|DELETE|WITH|INSERT)/i.test(sql)) return [];
  if (ALLOWED.some((a) => sql.includes(a.fragment))) return [];
  // A subquery named in FROM (`(SELECT …) AS name`) is scanned by its name: its own rows, already limited.
  const subqueries = new Set([...sql.matchAll(/\)\s+AS\s+(\w+)/gi)].map((m) => m[1]));
  return plan(sql).filter((detail) => {
    if (/USE TEMP B-TREE/.test(detail)) return true;
    const scan = /^SCAN (\w+)/.exec(detail);
    return (
      scan !== null && !/^SCAN (CONSTANT ROW|\(subquery|json_each)/.test(detail) && !SMALL.has(scan[1] ?? "") && !subqueries.has(scan[1])
    );
  });
}

describe("query plans", () => {
  it("every statement the hot paths run reads from an index in its order: no temp B-tree, no scan of a growing table", async () => {
    const { s, call, regenerator, scheduler } = f;
    // Writes that surface, their regeneration, and the reads of every list.
    const created = [];
    for (let i = 0; i < 30; i++) {
      const res = await ok(
        call("/api/mcp/actions", {
          body: { title: `Action ${i}`, priority: ["critical", "high", "medium", "low"][i % 4], type: i % 2 ? "task" : "follow_up" },
        }),
      );
      created.push(res.json);
    }
    await ok(call("/api/mcp/contacts", { body: { name: "Ada", email: "ada@example.com", company: "Acme" } }));
    await ok(call("/api/mcp/handoffs", { body: { from: "sales", to: "finance", title: "Invoice", priority: "critical" } }));
    await ok(call("/api/mcp/feed", { body: { agent: "sales", title: "Win", type: "insight", impact: "high" } }));
    await regenerator.flush();
    await seedRun(s, "pulse", "ok", s.clock.now(), { metrics: { dau: 1, wau: 2, mrr: 3 } });

    const first = await call("/api/mcp/actions?limit=5");
    expect(first.status).toBe(200);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const deep = await call(`/api/mcp/actions?limit=5&cursor=${encodeURIComponent(first.json.nextCursor)}`);
    expect(deep.status).toBe(200);
    const filtered = await call("/api/mcp/actions?limit=5&status=pending&type=task");
    expect(filtered.status).toBe(200);
    const filteredDeep = await call(`/api/mcp/actions?limit=5&status=pending&cursor=${encodeURIComponent(filtered.json.nextCursor ?? "")}`);
    expect([200, 400]).toContain(filteredDeep.status);
    for (const path of [
      "/api/mcp/agents",
      "/api/mcp/standup",
      "/api/mcp/standup?mode=morning",
      "/api/mcp/briefing",
      "/api/mcp/suggestions",
      "/api/mcp/dna",
      "/api/agents/sales/runs",
      "/api/webhooks",
    ]) {
      expect([200, 404], path).toContain((await call(path)).status);
    }
    // The contacts list (REST twin of the web page): first page, a search, a cursor page.
    await ok(call("/api/mcp/contacts", { body: { name: "Grace", email: "grace@example.com" } }));
    const contacts = await ok(call("/api/mcp/contacts?limit=1"));
    expect(contacts.json.nextCursor).toEqual(expect.any(String));
    await ok(call(`/api/mcp/contacts?limit=1&cursor=${encodeURIComponent(contacts.json.nextCursor)}`));
    await ok(call("/api/mcp/contacts?q=acme"));
    // The web app's other lists and the model's inputs read the same store functions.
    const insights = await listRecentInsights(s.db, s.org.id, 1, null);
    await listRecentInsights(s.db, s.org.id, 1, insights.next);
    for (const filter of [{}, { status: "queued" as const }, { status: "done" as const }, { to: "finance" }]) {
      await listHandoffs(s.db, s.org.id, filter, 10);
    }
    await recentContacts(s.db, s.org.id, 10);
    const audit = await listAudit(s.db, s.org.id, 1);
    await listAudit(s.db, s.org.id, 1, audit[0]?.id ?? "aud_");
    await listBackupEvents(s.db, s.org.id, 5);
    await ok(call(`/api/mcp/actions/${created[0].actionId}`, { method: "PATCH", body: { status: "done" } }));
    const run = await ok(call("/api/agents/finance/runs", { method: "POST" }));
    await ok(call(`/api/agents/finance/runs/${run.json.runId}/complete`, { body: { status: "ok", summary: "done" } }));
    const hook = await ok(call("/api/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["action.created"] } }));
    await ok(call(`/api/webhooks/${hook.json.id}/deliveries`));

    // MCP: the same operations through tools/call.
    const mcp = await connectHttp(s.url, (await client(s, "operator", ["admin"])).key);
    expect((await mcp.callTool({ name: "crew_list_actions", arguments: { limit: 3 } })).isError).toBeFalsy();
    expect((await mcp.callTool({ name: "crew_agent_status", arguments: {} })).isError).toBeFalsy();
    expect((await mcp.callTool({ name: "crew_briefing", arguments: {} })).isError).toBeFalsy();
    await mcp.close();

    // Background passes: scheduler tick, retention.
    await scheduler.tick();
    s.clock.advance(200 * 24 * HOUR);
    await runRetention(s.db, s.clock.now());

    expect(recorded.size).toBeGreaterThan(40);
    const bad = [...recorded].map((sql) => ({ sql: sql.replace(/\s+/g, " "), problems: problems(sql) })).filter((r) => r.problems.length);
    expect(bad).toEqual([]);
    if (process.env.SHOW_PLANS) for (const sql of recorded) console.log(sql.replace(/\s+/g, " "), "\n   ", plan(sql).join(" | "));
  });

  it("the actions queue reads its first, filtered and cursor pages by seeks on actions_queue", () => {
    const queue = [...recorded].filter(
      (sql) => sql.includes("FROM actions WHERE org_id = ?") && sql.includes("ORDER BY priority_rank, id DESC"),
    );
    expect(queue.length).toBeGreaterThanOrEqual(3);
    for (const sql of queue) {
      const details = plan(sql);
      expect(
        details.filter((d) => d.includes("actions")).every((d) => d.includes("USING INDEX actions_queue")),
        details.join(" | "),
      ).toBe(true);
    }
    const cursor = queue.find((sql) => sql.includes("UNION ALL"));
    expect(cursor && plan(cursor).join(" | ")).toMatch(
      /actions_queue \(org_id=\? AND priority_rank=\? AND id<\?\).*actions_queue \(org_id=\? AND priority_rank>\?\)/,
    );
  });
});
