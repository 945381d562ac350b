/**
 * The write side besides the action queue (src/docs/notes/rest-api.md): contact upsert (match rules, partial
 * updates, atomic under concurrency), handoffs between agents, the insight feed.
 */
import { describe, expect, it } from "vitest";
import { MINUTE } from "../../src/lib/clock.ts";
import { type Call, expectError, expectRateHeaders, serverWithClient } from "../helpers/rest.ts";
import type { TestServer } from "../helpers/server.ts";

let s: TestServer;
let call: Call;
let userId: string;
const freshServer = () => serverWithClient("team_enterprise", ["admin"], (f) => ({ s, call, userId } = f));

const rows = async (sql: string, args: (string | number)[] = []) => (await s.db.execute({ sql, args })).rows.map((r) => ({ ...r }));
const contact = async (id: string) =>
  (await rows("SELECT name, email, company, role, relationship, notes, created_at, updated_at FROM contacts WHERE id = ?", [id]))[0];

describe("POST /api/mcp/contacts", () => {
  freshServer();

  it("creates a contact, then updates only the fields sent, matching the email case-insensitively", async () => {
    const created = await call("/api/mcp/contacts", {
      body: { name: "Grace Hopper", email: "Grace@Navy.example", company: "US Navy", role: "Rear Admiral", notes: "Met at the summit" },
    });
    expect(created.status).toBe(200);
    expectRateHeaders(created, 600);
    expect(created.json).toEqual({ ok: true, contactId: expect.stringMatching(/^con_[0-9A-Z]{26}$/), action: "created" });
    const id = created.json.contactId;
    expect(await contact(id)).toEqual({
      name: "Grace Hopper",
      email: "grace@navy.example",
      company: "US Navy",
      role: "Rear Admiral",
      relationship: "contact",
      notes: "Met at the summit",
      created_at: s.clock.now(),
      updated_at: s.clock.now(),
    });

    s.clock.advance(MINUTE);
    const updated = await call("/api/mcp/contacts", {
      body: { name: "Grace Hopper", email: "  GRACE@navy.EXAMPLE ", relationship: "key" },
    });
    expect(updated.json).toEqual({ ok: true, contactId: id, action: "updated" });
    expect(await contact(id)).toEqual({
      name: "Grace Hopper",
      email: "grace@navy.example",
      company: "US Navy",
      role: "Rear Admiral",
      relationship: "key",
      notes: "Met at the summit",
      created_at: s.clock.now() - MINUTE,
      updated_at: s.clock.now(),
    });
    const renamed = await call("/api/mcp/contacts", { body: { name: "Amazing Grace", email: "grace@navy.example", company: "Harvard" } });
    expect(renamed.json.contactId).toBe(id);
    expect(await contact(id)).toMatchObject({ name: "Amazing Grace", company: "Harvard", role: "Rear Admiral", relationship: "key" });
    expect(await rows("SELECT id FROM contacts WHERE email = 'grace@navy.example' OR name_key LIKE '%grace%'")).toEqual([{ id }]);
    s.clock.advance(-MINUTE);
  });

  it("without an email matches by name among contacts that have none", async () => {
    const a = await call("/api/mcp/contacts", { body: { name: "Alan Turing", company: "Bletchley" } });
    expect(a.json.action).toBe("created");
    const again = await call("/api/mcp/contacts", { body: { name: "  alan TURING ", role: "Cryptanalyst" } });
    expect(again.json).toEqual({ ok: true, contactId: a.json.contactId, action: "updated" });
    expect(await contact(a.json.contactId)).toMatchObject({ company: "Bletchley", role: "Cryptanalyst", email: null });

    // A contact with an email is never matched by name alone, and an emailed upsert never takes an email-less one.
    const withEmail = await call("/api/mcp/contacts", { body: { name: "Ada Lovelace", email: "ada@example.com" } });
    const byName = await call("/api/mcp/contacts", { body: { name: "Ada Lovelace" } });
    expect(byName.json.action).toBe("created");
    expect(byName.json.contactId).not.toBe(withEmail.json.contactId);
    const emailed = await call("/api/mcp/contacts", { body: { name: "Alan Turing", email: "alan@example.com" } });
    expect(emailed.json.action).toBe("created");
    expect(emailed.json.contactId).not.toBe(a.json.contactId);
  });

  it("makes one contact from 20 concurrent upserts of one email: one created, nineteen updated", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("/api/mcp/contacts", { body: { name: `Racer ${i}`, email: i % 2 ? "RACE@example.com" : "race@EXAMPLE.com", notes: `n${i}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(results.map((r) => r.json.contactId));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.json.action === "created")).toHaveLength(1);
    expect(results.filter((r) => r.json.action === "updated")).toHaveLength(19);
    expect(await rows("SELECT id FROM contacts WHERE email = 'race@example.com'")).toEqual([{ id: [...ids][0] }]);
  });

  it("validates: name required 1–200, email valid ≤ 254, relationship enum, notes ≤ 5000, no unknown fields", async () => {
    const before = await rows("SELECT * FROM contacts");
    const cases: [unknown, string[]][] = [
      [{}, ["name"]],
      [{ name: "   " }, ["name"]],
      [{ name: "x".repeat(201) }, ["name"]],
      [{ name: "X", email: "not-an-email" }, ["email"]],
      [{ name: "X", email: `${"a".repeat(250)}@example.com` }, ["email"]],
      [{ name: "X", email: "" }, ["email"]],
      [{ name: "X", relationship: "friend" }, ["relationship"]],
      [{ name: "X", notes: "n".repeat(5001) }, ["notes"]],
      [{ name: "X", company: 7, role: ["cto"] }, ["company", "role"]],
      [{ name: "X", phone: "555" }, ["phone"]],
    ];
    for (const [body, paths] of cases) {
      const err = expectError(await call("/api/mcp/contacts", { body }), s.url, 400, "invalid_request");
      expect(err.issues.map((i: any) => i.path)).toEqual(paths);
    }
    expect(await rows("SELECT * FROM contacts")).toEqual(before);
    const long = await call("/api/mcp/contacts", { body: { name: "Long Notes", notes: "n".repeat(5000), relationship: "warm" } });
    expect(long.status).toBe(200);
  });
});

describe("POST /api/mcp/handoffs", () => {
  freshServer();

  it("queues a handoff from an agent or manual to an agent", async () => {
    const res = await call("/api/mcp/handoffs", {
      body: {
        from: "sales",
        to: "research",
        title: "Profile Globex",
        context: "They asked about SOC 2",
        priority: "high",
        type: "research",
      },
    });
    expect(res.status).toBe(200);
    expectRateHeaders(res, 600);
    expect(res.json).toEqual({ ok: true, handoffId: expect.stringMatching(/^hof_[0-9A-Z]{26}$/) });
    const manual = await call("/api/mcp/handoffs", { body: { from: "manual", to: "content", title: "Draft the launch post" } });
    expect(manual.status).toBe(200);
    expect(
      await rows("SELECT id, from_agent, to_agent, title, context, priority, type, status, created_by FROM handoffs ORDER BY id"),
    ).toEqual([
      {
        id: res.json.handoffId,
        from_agent: "sales",
        to_agent: "research",
        title: "Profile Globex",
        context: "They asked about SOC 2",
        priority: "high",
        type: "research",
        status: "queued",
        created_by: userId,
      },
      {
        id: manual.json.handoffId,
        from_agent: "manual",
        to_agent: "content",
        title: "Draft the launch post",
        context: null,
        priority: "medium",
        type: null,
        status: "queued",
        created_by: userId,
      },
    ]);
  });

  it("refuses unknown agent ids (and manual as a destination) with 400", async () => {
    const before = await rows("SELECT id FROM handoffs");
    const cases: [unknown, string[]][] = [
      [{ from: "marketing", to: "sales", title: "x" }, ["from"]],
      [{ from: "sales", to: "marketing", title: "x" }, ["to"]],
      [{ from: "sales", to: "manual", title: "x" }, ["to"]],
      [{ from: "Sales", to: "SALES", title: "x" }, ["from", "to"]],
      [{ to: "sales", title: "x" }, ["from"]],
      [{ from: "sales", to: "bdr" }, ["title"]],
      [{ from: "sales", to: "bdr", title: "x", priority: "asap" }, ["priority"]],
      [{ from: "sales", to: "bdr", title: "x", context: "c".repeat(5001) }, ["context"]],
    ];
    for (const [body, paths] of cases) {
      const err = expectError(await call("/api/mcp/handoffs", { body }), s.url, 400, "invalid_request");
      expect(err.issues.map((i: any) => i.path)).toEqual(paths);
    }
    expect(await rows("SELECT id FROM handoffs")).toEqual(before);
  });
});

describe("POST /api/mcp/feed", () => {
  freshServer();

  it("posts an insight with the defaults agent manual, type insight, impact medium", async () => {
    const res = await call("/api/mcp/feed", { body: { title: "Competitor cut prices" } });
    expect(res.status).toBe(200);
    expectRateHeaders(res, 600);
    expect(res.json).toEqual({ ok: true, insightId: expect.stringMatching(/^ins_[0-9A-Z]{26}$/) });
    const full = await call("/api/mcp/feed", {
      body: { title: "Churn risk at Initech", detail: "Usage down 40%", agent: "pulse", type: "alert", impact: "high" },
    });
    expect(await rows("SELECT id, agent, title, detail, type, impact, created_by FROM insights ORDER BY id")).toEqual([
      {
        id: res.json.insightId,
        agent: "manual",
        title: "Competitor cut prices",
        detail: null,
        type: "insight",
        impact: "medium",
        created_by: userId,
      },
      {
        id: full.json.insightId,
        agent: "pulse",
        title: "Churn risk at Initech",
        detail: "Usage down 40%",
        type: "alert",
        impact: "high",
        created_by: userId,
      },
    ]);
  });

  it("refuses bad agents, types and impacts", async () => {
    const cases: [unknown, string[]][] = [
      [{ title: "x", agent: "nobody" }, ["agent"]],
      [{ title: "x", type: "rumour" }, ["type"]],
      [{ title: "x", impact: "critical" }, ["impact"]],
      [{ title: "x", detail: "d".repeat(5001) }, ["detail"]],
      [{ detail: "no title" }, ["title"]],
    ];
    for (const [body, paths] of cases) {
      const err = expectError(await call("/api/mcp/feed", { body }), s.url, 400, "invalid_request");
      expect(err.issues.map((i: any) => i.path)).toEqual(paths);
    }
  });
});
