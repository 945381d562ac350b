/**
 * src/docs/notes/rest-api.md quota in one process: per user (all keys shared), fixed hourly windows, refused and
 * unauthenticated requests take nothing; src/docs/notes/access.md: revocation and plan changes apply at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, MINUTE } from "../../src/lib/clock.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { revokeApiKey } from "../../src/store/auth/api-keys.ts";
import { setUserPlan } from "../../src/store/auth/users.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const LIMIT = 5;
let s: TestServer;

beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: String(LIMIT) } });
});
afterAll(() => s.close());

/** The count stored for a user in the current window. */
async function storedUse(userId: string): Promise<number> {
  const res = await s.db.execute({
    sql: "SELECT used FROM quota_windows WHERE user_id = ? AND window_start = ?",
    args: [userId, Math.floor(s.clock.now() / HOUR) * HOUR],
  });
  return Number(res.rows[0]?.used ?? 0);
}

const remainingOf = (r: { headers: Headers }) => r.headers.get("x-ratelimit-remaining");

describe("quota in one process", () => {
  it("admits exactly the limit of concurrent requests, each unit once", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const responses = await Promise.all(Array.from({ length: 12 }, () => api(s.url, key)("/api/mcp/agents")));
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(LIMIT);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(12 - LIMIT);
    expect(ok.map((r) => Number(remainingOf(r))).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await storedUse(user.id)).toBe(LIMIT);
  });

  it("answers 429 rate_limited with the rate headers, and a new window starts afresh", async () => {
    const start = s.clock.now();
    s.clock.set(Math.floor(start / HOUR) * HOUR + HOUR + 30 * MINUTE); // half-way through a fresh hour
    const windowEnd = Math.floor(s.clock.now() / HOUR) * HOUR + HOUR;
    const { key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    for (let i = 0; i < LIMIT; i++) {
      const r = await call("/api/mcp/agents");
      expect(r.status).toBe(200);
      expect(remainingOf(r)).toBe(String(LIMIT - 1 - i));
      expect(r.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
      expect(r.headers.get("x-ratelimit-reset")).toBe(String(windowEnd / 1000));
      expect(r.headers.get("retry-after")).toBeNull();
    }
    const refused = await call("/api/mcp/agents");
    expect(refused.status).toBe(429);
    expect(refused.json.error).toBe("rate_limited");
    expect(refused.json.request_id).toBe(refused.headers.get("x-request-id"));
    expect(refused.headers.get("retry-after")).toBe("1800");
    expect(refused.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
    expect(remainingOf(refused)).toBe("0");
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(windowEnd / 1000));
    expect(refused.headers.get("api-version")).toBe("1.0.0");

    s.clock.advance(30 * MINUTE - 1000);
    expect((await call("/api/mcp/agents")).headers.get("retry-after")).toBe("1");
    s.clock.advance(1000); // the next hour begins
    const fresh = await call("/api/mcp/agents");
    expect(fresh.status).toBe(200);
    expect(remainingOf(fresh)).toBe(String(LIMIT - 1));
    expect(fresh.headers.get("x-ratelimit-reset")).toBe(String(windowEnd / 1000 + 3600));
  });

  it("shares one quota between the keys of one user, not between users", async () => {
    const alice = await s.userWithKey("operator", ["admin"]);
    const aliceSecond = await s.createKey(alice.user, ["read"], "second key");
    const bob = await s.userWithKey("operator", ["admin"]);
    for (let i = 0; i < LIMIT; i++) {
      const r = await api(s.url, i % 2 ? aliceSecond : alice.key)("/api/mcp/agents");
      expect(remainingOf(r)).toBe(String(LIMIT - 1 - i));
    }
    expect((await api(s.url, alice.key)("/api/mcp/agents")).status).toBe(429);
    expect((await api(s.url, aliceSecond)("/api/mcp/agents")).status).toBe(429);
    const other = await api(s.url, bob.key)("/api/mcp/agents");
    expect(other.status).toBe(200);
    expect(remainingOf(other)).toBe(String(LIMIT - 1));
  });

  it("counts requests refused later (403) but not refused ones (429)", async () => {
    const { user, key } = await s.userWithKey("operator", ["agents"]);
    const call = api(s.url, key);
    const forbidden = await call("/api/mcp/actions"); // authenticated, counted, then 403 on scope
    expect(forbidden.status).toBe(403);
    expect(remainingOf(forbidden)).toBe(String(LIMIT - 1));
    for (let i = 1; i < LIMIT; i++) expect((await call("/api/mcp/agents")).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await call("/api/mcp/agents")).status).toBe(429);
    expect(await storedUse(user.id)).toBe(LIMIT);
  });

  it("does not count unauthenticated requests", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const anonymous = await api(s.url)("/api/mcp/agents");
    const unknown = await api(s.url, `crew_${"a".repeat(52)}`)("/api/mcp/agents");
    const malformed = await api(s.url)("/api/mcp/agents", { headers: { Authorization: "Basic abc" } });
    for (const r of [anonymous, unknown, malformed]) {
      expect(r.status).toBe(401);
      expect(remainingOf(r)).toBeNull();
    }
    expect(await storedUse(user.id)).toBe(0);
    expect(remainingOf(await api(s.url, key)("/api/mcp/agents"))).toBe(String(LIMIT - 1));
  });

  it("applies key revocation and plan changes to the very next request", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    expect((await call("/api/mcp/agents")).status).toBe(200);
    expect(await setUserPlan(s.db, user.email, "lite")).toBe(true);
    const downgraded = await call("/api/mcp/agents");
    expect(downgraded.status).toBe(403);
    expect(downgraded.json.error).toBe("plan_upgrade_required");
    expect(await revokeApiKey(s.db, user.id, sha256Hex(key), s.clock.now())).toBe(true);
    const revoked = await call("/api/mcp/agents");
    expect(revoked.status).toBe(401);
    expect(revoked.json.error).toBe("invalid_token");
    expect(await storedUse(user.id)).toBe(2);
  });
});
