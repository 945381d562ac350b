/**
 * The action queue over real HTTP (src/docs/notes/rest-api.md): list with filters and keyset pagination (priority
 * order, then newest; stable across pages), add one or a batch (ids in input order,
 * all-or-nothing), update by PATCH.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { priorityRank } from "../../src/domain.ts";
import { HOUR, iso, MINUTE } from "../../src/lib/clock.ts";
import type { ActionInsert } from "../../src/store/actions/actions.ts";
import { upsertContact } from "../../src/store/contacts/contacts.ts";
import { type Call, expectError, expectRateHeaders, otherOrg, seedActions, seededRandom, serverWithClient } from "../helpers/rest.ts";
import type { TestServer } from "../helpers/server.ts";

let s: TestServer;
let call: Call;
let userId: string;
const freshServer = () => serverWithClient("operator", ["admin"], (f) => ({ s, call, userId } = f));

const count = async (table: string) => Number((await s.db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

/** Every page of a listing, following nextCursor. */
async function allPages(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = query ? "&" : "";
    const res = await call(`/api/mcp/actions?${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status).toBe(200);
    expect(res.json.actions.length).toBeLessThanOrEqual(limit);
    ids.push(...res.json.actions.map((a: any) => a.id));
    cursor = res.json.nextCursor;
    pages += 1;
    expect(pages).toBeLessThan(200);
  } while (cursor);
  return { ids, pages };
}

/** The queue's order: priority (critical first), then newest (ids are time-ordered). */
const queueOrder = (rows: ActionInsert[]) =>
  [...rows].sort((a, b) => priorityRank(a.priority) - priorityRank(b.priority) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

describe("GET /api/mcp/actions", () => {
  freshServer();
  let seeded: ActionInsert[];
  beforeAll(async () => {
    // 73 actions with a seeded mix of every filterable field, created one minute apart in order.
    const rnd = seededRandom(20261122);
    const start = s.clock.now() - 100 * MINUTE;
    seeded = await seedActions(
      s,
      userId,
      Array.from({ length: 73 }, (_, i) => ({
        title: `Seeded ${i}`,
        priority: rnd.pick(["critical", "high", "medium", "low"] as const),
        status: rnd.pick(["pending", "approved", "in_progress", "done", "dismissed"] as const),
        source: rnd.pick(["api", "mcp", "sales", "inbox"]),
        type: rnd.pick(["task", "approval", "follow_up"] as const),
        lane: rnd.pick(["today", "this_week", "later"] as const),
        createdAt: start + i * MINUTE,
      })),
    );
    // Another organization's actions never show.
    await seedActions(s, userId, [{ title: "Elsewhere", priority: "critical" }], await otherOrg(s));
  });

  it("returns the first 50 by default in priority order then newest, with the stored fields", async () => {
    const res = await call("/api/mcp/actions");
    expect(res.status).toBe(200);
    expectRateHeaders(res, 600);
    const expected = queueOrder(seeded);
    expect(res.json.actions.map((a: any) => a.id)).toEqual(expected.slice(0, 50).map((a) => a.id));
    expect(typeof res.json.nextCursor).toBe("string");
    const first = expected[0]!;
    expect(res.json.actions[0]).toEqual({
      id: first.id,
      title: first.title,
      description: null,
      priority: first.priority,
      category: null,
      status: first.status,
      source: first.source,
      type: first.type,
      lane: first.lane,
      contactId: null,
      dealId: null,
      createdAt: iso(first.createdAt),
      updatedAt: iso(first.createdAt),
      createdBy: userId,
      evidence: [],
      runId: null,
      snoozedUntil: null,
      provenance: "internal",
      heldReason: null,
    });
  });

  it("pages with nextCursor without duplicates or gaps, for every page size and filter", async () => {
    const filters: [string, (a: ActionInsert) => boolean][] = [
      ["", () => true],
      ["status=pending", (a) => a.status === "pending"],
      ["source=sales", (a) => a.source === "sales"],
      ["type=approval", (a) => a.type === "approval"],
      ["lane=today", (a) => a.lane === "today"],
      ["status=done&lane=later", (a) => a.status === "done" && a.lane === "later"],
      ["source=mcp&type=task", (a) => a.source === "mcp" && a.type === "task"],
      ["source=finance", () => false],
    ];
    for (const [query, keep] of filters) {
      const expected = queueOrder(seeded.filter(keep)).map((a) => a.id);
      if (query !== "source=finance") expect(expected.length, query).toBeGreaterThan(0);
      for (const limit of [1, 7, 50, 100]) {
        const { ids, pages } = await allPages(query, limit);
        expect(ids, `${query} limit ${limit}`).toEqual(expected);
        expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
      }
    }
  });

  it("stays stable when actions are added between pages: every earlier action exactly once", async () => {
    const first = await call("/api/mcp/actions?limit=10");
    const seen = first.json.actions.map((a: any) => a.id);
    // New actions of every priority arrive while the client pages.
    await seedActions(
      s,
      userId,
      (["critical", "high", "medium", "low"] as const).map((priority) => ({
        title: `Late ${priority}`,
        priority,
        createdAt: s.clock.now(),
      })),
    );
    let cursor = first.json.nextCursor;
    while (cursor) {
      const page = await call(`/api/mcp/actions?limit=10&cursor=${cursor}`);
      seen.push(...page.json.actions.map((a: any) => a.id));
      cursor = page.json.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const a of seeded) expect(seen).toContain(a.id);
  });

  it("refuses bad filters, limits and cursors with 400 naming the parameter", async () => {
    const cases: [string, string][] = [
      ["status=open", "status"],
      ["source=browser", "source"],
      ["type=meeting", "type"],
      ["lane=tomorrow", "lane"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=2.5", "limit"],
      ["limit=ten", "limit"],
      ["limit=", "limit"],
      ["cursor=nope", "cursor"],
      ["cursor=WzksImFjdF94Il0", "cursor"], // [9,"act_x"]: not a sort key this endpoint hands out
      ["limit=5&limit=6", "limit"],
      ["sort=newest", "sort"],
    ];
    for (const [query, path] of cases) {
      const body = expectError(await call(`/api/mcp/actions?${query}`), s.url, 400, "invalid_request");
      expect(
        body.issues.map((i: any) => i.path),
        query,
      ).toEqual([path]);
    }
  });
});

describe("POST /api/mcp/actions", () => {
  freshServer();

  it("adds one action with the defaults of src/docs/notes/rest-api.md", async () => {
    const res = await call("/api/mcp/actions", { body: { title: "  Call Acme  " } });
    expect(res.status).toBe(200);
    expectRateHeaders(res, 600);
    expect(res.json).toEqual({ ok: true, actionId: expect.stringMatching(/^act_[0-9A-Z]{26}$/) });
    const list = await call("/api/mcp/actions");
    expect(list.json.actions).toEqual([
      {
        id: res.json.actionId,
        title: "Call Acme",
        description: null,
        priority: "medium",
        category: null,
        status: "pending",
        source: "api",
        type: "task",
        lane: "this_week",
        contactId: null,
        dealId: null,
        createdAt: iso(s.clock.now()),
        updatedAt: iso(s.clock.now()),
        createdBy: userId,
        evidence: [],
        runId: null,
        snoozedUntil: null,
        provenance: "internal",
        heldReason: null,
      },
    ]);
  });

  it("stores every optional field, defaults the lane by priority, and checks contactId", async () => {
    const contact = await upsertContact(s.db, s.org.id, "con_01JD0000000000000000000000", { name: "Ada" }, userId, s.clock.now());
    const optional = {
      description: "She asked for pricing",
      priority: "low",
      category: "sales",
      type: "follow_up",
      lane: "today",
      contactId: contact.id,
      dealId: "deal-42",
    };
    const full = await call("/api/mcp/actions", { body: { title: "Follow up with Ada", ...optional } });
    expect(full.status).toBe(200);
    const lanes: Record<string, string> = {};
    for (const priority of ["critical", "high", "medium", "low"]) {
      const r = await call("/api/mcp/actions", { body: { title: `Lane ${priority}`, priority } });
      lanes[priority] = r.json.actionId;
    }
    const list = (await call("/api/mcp/actions?limit=100")).json.actions;
    const byId = Object.fromEntries(list.map((a: any) => [a.id, a]));
    expect(byId[full.json.actionId]).toMatchObject(optional);
    expect(Object.fromEntries(Object.entries(lanes).map(([p, id]) => [p, byId[id].lane]))).toEqual({
      critical: "today",
      high: "today",
      medium: "this_week",
      low: "later",
    });

    const before = await count("actions");
    const unknown = expectError(
      await call("/api/mcp/actions", { body: { title: "x", contactId: "con_01JD0000000000000000000001" } }),
      s.url,
      400,
      "invalid_request",
    );
    expect(unknown.issues).toEqual([{ path: "contactId", message: "No contact with this id." }]);
    // `type: approval` is for agents asking a person; API callers post tasks and follow-ups.
    const approval = expectError(await call("/api/mcp/actions", { body: { title: "x", type: "approval" } }), s.url, 400, "invalid_request");
    expect(approval.issues[0].path).toBe("type");
    expect(await count("actions")).toBe(before);
  });

  it("adds a batch all-or-nothing and returns the ids in input order", async () => {
    const titles = Array.from({ length: 12 }, (_, i) => `Batch item ${i}`);
    const res = await call("/api/mcp/actions", {
      body: { actions: titles.map((title, i) => ({ title, priority: (["low", "critical", "medium", "high"] as const)[i % 4] })) },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["actionIds", "ok"]);
    expect(res.json.actionIds).toHaveLength(12);
    const list = (await call("/api/mcp/actions?limit=100")).json.actions;
    const titleOf = Object.fromEntries(list.map((a: any) => [a.id, a.title]));
    expect(res.json.actionIds.map((id: string) => titleOf[id])).toEqual(titles);

    const hundred = await call("/api/mcp/actions", { body: { actions: Array.from({ length: 100 }, (_, i) => ({ title: `H${i}` })) } });
    expect(hundred.json.actionIds).toHaveLength(100);
  });

  it("refuses a batch with one bad item naming actions[i].<field>, and stores nothing", async () => {
    const before = await count("actions");
    const items = Array.from({ length: 8 }, (_, i) => ({ title: `Good ${i}` }));
    const cases: [unknown[], { path: string; message: string }[]][] = [
      [
        items.with(3, { title: "Bad", priority: "urgent" } as any),
        [{ path: "actions[3].priority", message: "Must be one of critical, high, medium, low." }],
      ],
      [items.with(0, { title: "   " }), [{ path: "actions[0].title", message: "Must not be empty." }]],
      [items.with(7, { title: "x", colour: "red" } as any), [{ path: "actions[7].colour", message: "Unknown field." }]],
      [items.with(5, { description: "no title" } as any), [{ path: "actions[5].title", message: "Required." }]],
      [items.with(6, { title: "x".repeat(201) }), [{ path: "actions[6].title", message: "Must be at most 200 characters." }]],
      [
        items.with(2, { title: "x", contactId: "con_01JD0000000000000000000009" } as any),
        [{ path: "actions[2].contactId", message: "No contact with this id." }],
      ],
      [[...items.slice(0, 2), "not an object"], [{ path: "actions[2]", message: expect.any(String) }]],
      [
        items.with(1, { title: "x", lane: "soon" } as any).with(4, { title: 5 } as any),
        [
          { path: "actions[1].lane", message: "Must be one of today, this_week, later." },
          { path: "actions[4].title", message: "Must be a string." },
        ],
      ],
    ];
    for (const [actions, issues] of cases) {
      const body = expectError(await call("/api/mcp/actions", { body: { actions } }), s.url, 400, "invalid_request");
      expect(body.issues).toEqual(issues);
      for (const i of issues) expect(body.message).toContain(i.path);
    }
    for (const bad of [[], Array.from({ length: 101 }, () => ({ title: "x" })), "x", null]) {
      const body = expectError(await call("/api/mcp/actions", { body: { actions: bad } }), s.url, 400, "invalid_request");
      expect(body.issues[0].path).toBe("actions");
    }
    expect(await count("actions")).toBe(before);
  });
});

describe("PATCH /api/mcp/actions/{id}", () => {
  freshServer();

  it("changes status, priority and lane, only the fields sent, and returns the stored action", async () => {
    const created = await call("/api/mcp/actions", { body: { title: "Review contract", priority: "low", category: "ops" } });
    const id = created.json.actionId;
    const createdAt = iso(s.clock.now());
    s.clock.advance(5 * MINUTE);
    const approved = await call(`/api/mcp/actions/${id}`, { method: "PATCH", body: { status: "approved" } });
    expect(approved.status).toBe(200);
    expectRateHeaders(approved, 600);
    expect(approved.json).toEqual({
      id,
      title: "Review contract",
      description: null,
      priority: "low",
      category: "ops",
      status: "approved",
      source: "api",
      type: "task",
      lane: "later",
      contactId: null,
      dealId: null,
      createdAt,
      updatedAt: iso(s.clock.now()),
      createdBy: userId,
      evidence: [],
      runId: null,
      snoozedUntil: null,
      provenance: "internal",
      heldReason: null,
    });
    const raised = await call(`/api/mcp/actions/${id}`, { method: "PATCH", body: { priority: "critical", lane: "today" } });
    expect(raised.json).toMatchObject({ status: "approved", priority: "critical", lane: "today" });
    // The queue re-sorts by the new priority.
    await call("/api/mcp/actions", { body: { title: "Something high", priority: "high" } });
    expect((await call("/api/mcp/actions")).json.actions[0].id).toBe(id);
    s.clock.advance(-5 * MINUTE);
  });

  it("snoozes with snoozedUntil: hidden from view=open until then, listed under view=snoozed, woken by null; a bad time is a 400", async () => {
    const id = (await call("/api/mcp/actions", { body: { title: "Snooze me", priority: "critical" } })).json.actionId;
    const until = iso(s.clock.now() + 2 * HOUR);
    const snoozed = await call(`/api/mcp/actions/${id}`, { method: "PATCH", body: { snoozedUntil: until } });
    expect(snoozed.json).toMatchObject({ id, status: "pending", snoozedUntil: until });
    const ids = async (query: string) => (await call(`/api/mcp/actions?${query}&limit=100`)).json.actions.map((a: any) => a.id);
    expect(await ids("view=open")).not.toContain(id);
    expect(await ids("view=snoozed")).toEqual([id]);
    expect(await ids("status=pending")).toContain(id); // no view: every action, as before

    const bad = expectError(
      await call(`/api/mcp/actions/${id}`, { method: "PATCH", body: { snoozedUntil: "tomorrow" } }),
      s.url,
      400,
      "invalid_request",
    );
    expect(bad.issues.map((i: any) => i.path)).toEqual(["snoozedUntil"]);
    expect((await call(`/api/mcp/actions/${id}`)).json.snoozedUntil).toBe(until);

    s.clock.advance(2 * HOUR + MINUTE);
    expect(await ids("view=open")).toContain(id);
    expect(await ids("view=snoozed")).toEqual([]);
    s.clock.advance(-(2 * HOUR + MINUTE));
    expect((await call(`/api/mcp/actions/${id}`, { method: "PATCH", body: { snoozedUntil: null } })).json.snoozedUntil).toBeNull();
    expect(await ids("view=open")).toContain(id);
    await call(`/api/mcp/actions/${id}`, { method: "PATCH", body: { status: "done" } });
  });

  it("is 404 for an unknown id or another organization's action; 400 for a bad body", async () => {
    expectError(
      await call("/api/mcp/actions/act_01JD0000000000000000000000", { method: "PATCH", body: { status: "done" } }),
      s.url,
      404,
      "not_found",
    );
    const [foreign] = await seedActions(s, userId, [{ title: "Not yours" }], await otherOrg(s));
    expectError(await call(`/api/mcp/actions/${foreign!.id}`, { method: "PATCH", body: { status: "done" } }), s.url, 404, "not_found");

    const id = (await call("/api/mcp/actions", { body: { title: "Mine" } })).json.actionId;
    const cases: [unknown, string[]][] = [
      [{}, ["(body)"]],
      [{ status: "finished" }, ["status"]],
      [{ priority: "urgent", lane: 3 }, ["priority", "lane"]],
      // Both wrongs at once: an unknown field, and nothing left to change.
      [{ title: "renamed" }, ["(body)", "title"]],
      [{ id: "act_other", status: "done" }, ["id"]],
    ];
    for (const [body, paths] of cases) {
      const err = expectError(await call(`/api/mcp/actions/${id}`, { method: "PATCH", body }), s.url, 400, "invalid_request");
      expect(err.issues.map((i: any) => i.path)).toEqual(paths);
    }
    const after = (await call("/api/mcp/actions")).json.actions.find((a: any) => a.id === id);
    expect(after).toMatchObject({ title: "Mine", status: "pending", priority: "medium", lane: "this_week" });
  });
});
