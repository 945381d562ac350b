/**
 * Who may call what (src/docs/notes/web-and-accounts.md), generated from the endpoint table in test/helpers/rest.ts:
 * every key scope against every endpoint, and every plan against a read and a write endpoint,
 * with the plan changed between requests (read on every request, so it takes effect at once).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KeyScope, PLANS, type Plan } from "../../src/domain.ts";
import { setUserPlan } from "../../src/store/auth/users.ts";
import {
  client,
  ENDPOINTS,
  type Endpoint,
  expectError,
  expectRateHeaders,
  fastKey,
  KEY_SCOPE_LIST,
  label,
  seedActions,
  seedStandup,
} from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let actionId: string;
beforeAll(async () => {
  s = await startServer();
  const owner = await client(s, "operator", ["admin"]);
  const [action] = await seedActions(s, owner.user.id, [{ title: "Patch me" }]);
  actionId = action!.id;
  await seedStandup(s, "morning", s.clock.now() - 60_000, "Standup for the matrix"); // so GET standup is a 200
});
afterAll(() => s.close());

const request = (call: ReturnType<typeof api>, e: Endpoint) =>
  call(e.path.replace("{id}", actionId), { method: e.method, ...(e.body === undefined ? {} : { body: e.body }) });

describe("key scope × endpoint (operator plan)", () => {
  const matrix = ENDPOINTS.flatMap((e) => KEY_SCOPE_LIST.map((scope) => ({ e, scope, allowed: e.scopes.includes(scope) })));

  it("covers 4 scopes × 11 endpoints", () => {
    expect(matrix).toHaveLength(44);
    expect(new Set(ENDPOINTS.map(label)).size).toBe(11);
  });

  it.each(matrix.map((m) => [`${m.scope} → ${label(m.e)} → ${m.allowed ? 200 : 403}`, m] as const))(
    "%s",
    async (_name, { e, scope, allowed }) => {
      const { call } = await client(s, "operator", [scope]);
      const res = await request(call, e);
      expectRateHeaders(res, 600);
      if (allowed) {
        expect(res.status, res.text).toBe(200);
        return;
      }
      const body = expectError(res, s.url, 403, "insufficient_scope");
      expect(body.required_scope).toBe(e.required);
      expect(res.headers.get("www-authenticate")).toContain(`scope="${e.required}"`);
    },
  );

  it("a key holding several scopes gets their union", async () => {
    const { call } = await client(s, "operator", ["briefing", "agents"]);
    for (const e of ENDPOINTS) {
      const res = await request(call, e);
      const expected = e.scopes.includes("briefing") || e.scopes.includes("agents") ? 200 : 403;
      expect(res.status, label(e)).toBe(expected);
    }
  });
});

describe("plan × endpoint (admin key; setUserPlan between requests)", () => {
  const read = ENDPOINTS.find((e) => e.method === "GET" && e.path === "/api/mcp/agents")!;
  const write = ENDPOINTS.find((e) => e.method === "POST" && e.path === "/api/mcp/actions")!;
  // 200, or the cheapest plan a 403 plan_upgrade_required must name.
  const expected: Record<Plan, { read: 200 | "pro"; write: 200 | "operator" }> = {
    lite: { read: "pro", write: "operator" },
    team_starter: { read: "pro", write: "operator" },
    pro: { read: 200, write: "operator" },
    team_growth: { read: 200, write: "operator" },
    operator: { read: 200, write: 200 },
    team_enterprise: { read: 200, write: 200 },
  };

  it("covers every plan of src/docs/notes/web-and-accounts.md", () => {
    expect(Object.keys(expected).sort()).toEqual([...PLANS].sort());
  });

  it("caps one existing key by the plan read on every request", async () => {
    const { user, call } = await client(s, "operator", ["admin"]);
    // Twice through, so every change (up and down) is seen at once by the same key.
    for (const plan of [...PLANS, ...[...PLANS].reverse()]) {
      expect(await setUserPlan(s.db, user.email, plan)).toBe(true);
      for (const [tier, e] of [
        ["read", read],
        ["write", write],
      ] as const) {
        const want = expected[plan][tier];
        const res = await request(call, e);
        expectRateHeaders(res, 600);
        if (want === 200) {
          expect(res.status, `${plan} ${label(e)}`).toBe(200);
          continue;
        }
        const body = expectError(res, s.url, 403, "plan_upgrade_required");
        expect(body.message, `${plan} ${label(e)}`).toContain(`the ${want} plan`);
        expect(body.message).toContain(plan);
      }
    }
  });

  it("every endpoint follows its tier on every plan; the plan is checked before the scope", async () => {
    for (const plan of PLANS) {
      const { call } = await client(s, plan, ["agents"]);
      for (const e of ENDPOINTS) {
        const res = await request(call, e);
        const tierOk =
          plan === "operator" || plan === "team_enterprise" || (e.tier === "read" && (plan === "pro" || plan === "team_growth"));
        if (!tierOk) expectError(res, s.url, 403, "plan_upgrade_required");
        else if (e.scopes.includes("agents")) expect(res.status).toBe(200);
        else expectError(res, s.url, 403, "insufficient_scope");
      }
    }
  });

  it("a downgraded admin key on a read plan reads like a read key but cannot write", async () => {
    const { user, key } = await client(s, "operator", ["admin"]);
    await setUserPlan(s.db, user.email, "pro");
    const call = api(s.url, key);
    for (const e of ENDPOINTS) {
      const res = await request(call, e);
      if (e.tier === "read") expect(res.status, label(e)).toBe(200);
      else expectError(res, s.url, 403, "plan_upgrade_required");
    }
    // Keys made for a read plan never include admin, so on pro the action queue needs an upgrade in practice.
    const reader = api(s.url, await fastKey(s, user, ["read"] as KeyScope[]));
    expect(expectError(await reader("/api/mcp/actions"), s.url, 403, "insufficient_scope").required_scope).toBe("admin");
  });
});
