/**
 * Error paths of src/docs/notes/rest-api.md over real HTTP: the exact envelope, status, and headers of every error
 * status; the order of checks; API-Version, X-Request-Id and X-RateLimit-* on every response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, MINUTE } from "../../src/lib/clock.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { revokeApiKey } from "../../src/store/auth/api-keys.ts";
import { type Call, client, envelopeProblems, expectError, expectRateHeaders, fastKey, serverWithClient } from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let admin: Call;
let adminKey: string;
serverWithClient("operator", ["admin"], (f) => ({ s, call: admin, key: adminKey } = f));

const metadata = () => `resource_metadata="${s.url}/.well-known/oauth-protected-resource"`;

describe("401", () => {
  it("unauthorized without a credential: the challenge has realm and resource_metadata, no error", async () => {
    for (const headers of [{}, { Authorization: "" }, { Authorization: "   " }] as Record<string, string>[]) {
      const res = await api(s.url)("/api/mcp/agents", { headers });
      const body = expectError(res, s.url, 401, "unauthorized");
      expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="crew", ${metadata()}`);
      expect(body.auth_url).toBe(`${s.url}/.well-known/oauth-authorization-server`);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  it("invalid_token for unknown, revoked and malformed credentials, with error= and error_description=", async () => {
    const c = await client(s, "operator", ["admin"]);
    expect((await c.call("/api/mcp/agents")).status).toBe(200);
    await revokeApiKey(s.db, c.user.id, sha256Hex(c.key), s.clock.now());
    const headers = [
      `Bearer ${c.key}`, // revoked
      `Bearer ${adminKey}x`, // unknown key
      "Bearer crew_", // unknown key
      "Bearer some-oauth-looking-token", // unknown access token
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer a b",
      `Token ${adminKey}`,
      `${adminKey}`,
      "Bearer ,,,",
    ];
    for (const authorization of headers) {
      const res = await api(s.url)("/api/mcp/briefing", { headers: { Authorization: authorization } });
      expectError(res, s.url, 401, "invalid_token");
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge, authorization).toMatch(
        new RegExp(`^Bearer realm="crew", error="invalid_token", error_description="[^"]+", ${metadata().replace(/[.?]/g, "\\$&")}$`),
      );
    }
  });

  it("comes before every other check: no quota taken, no validation", async () => {
    const res = await api(s.url)("/api/mcp/actions", { body: "{broken", headers: { Authorization: "Bearer crew_nope" } });
    expectError(res, s.url, 401, "invalid_token");
    // Unknown paths under /api/mcp are protected too: the credential is checked before routing (off the document on purpose).
    expectError(await api(s.url, undefined, { contract: false })("/api/mcp/nowhere", { method: "DELETE" }), s.url, 401, "unauthorized");
  });
});

describe("403", () => {
  it("insufficient_scope names the required scope in the body and the challenge; rate headers present", async () => {
    const reader = await client(s, "operator", ["read"]);
    const res = await reader.call("/api/mcp/actions", { body: { title: "x" } });
    const body = expectError(res, s.url, 403, "insufficient_scope");
    expect(body.required_scope).toBe("admin");
    expect(body.message).toContain("admin");
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="crew", error="insufficient_scope", scope="admin", ${metadata()}`);
    expectRateHeaders(res, 600);
    const agentsOnly = await client(s, "operator", ["agents"]);
    const briefing = await agentsOnly.call("/api/mcp/briefing");
    expect(expectError(briefing, s.url, 403, "insufficient_scope").required_scope).toBe("briefing");
    expect(briefing.headers.get("www-authenticate")).toContain('scope="briefing"');
  });

  it("plan_upgrade_required names the cheapest plan that includes the request", async () => {
    const lite = await client(s, "lite", ["admin"]);
    const read = expectError(await lite.call("/api/mcp/agents"), s.url, 403, "plan_upgrade_required");
    expect(read.message).toContain("the pro plan");
    const pro = await client(s, "pro", ["admin"]);
    const res = await pro.call("/api/mcp/feed", { body: { title: "x" } });
    const write = expectError(res, s.url, 403, "plan_upgrade_required");
    expect(write.message).toContain("the operator plan");
    expect(write.required_scope).toBeUndefined();
    // src/docs/notes/rest-api.md gives every 403 the insufficient_scope challenge, naming what the operation needs.
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="crew", error="insufficient_scope", scope="admin", ${metadata()}`);
    expect((await lite.call("/api/mcp/agents")).headers.get("www-authenticate")).toContain('scope="agents"');
    expectRateHeaders(res, 600);
  });

  it("comes before input validation (400)", async () => {
    const reader = await client(s, "operator", ["read"]);
    expectError(await reader.call("/api/mcp/actions", { body: "{broken" }), s.url, 403, "insufficient_scope");
    expectError(await reader.call("/api/mcp/actions?limit=0"), s.url, 403, "insufficient_scope");
  });
});

describe("400", () => {
  it("names every offending field in issues; broken JSON and non-objects name the body", async () => {
    const many = expectError(
      await admin("/api/mcp/actions", { body: { title: "", priority: "urgent", colour: "red", description: 5 } }),
      s.url,
      400,
      "invalid_request",
    );
    expect(many.issues.map((i: any) => i.path).sort()).toEqual(["colour", "description", "priority", "title"]);
    expect(many.message).toMatch(/title/);
    for (const raw of ["{broken", "", "[1,2]", '"text"', "null", "42"]) {
      const res = await admin("/api/mcp/feed", { method: "POST", body: raw, headers: { "Content-Type": "application/json" } });
      const body = expectError(res, s.url, 400, "invalid_request");
      expect(body.issues).toEqual([{ path: "(body)", message: body.message }]);
    }
    const rep = expectError(await admin("/api/mcp/suggestions?agent=sales&agent=bdr"), s.url, 400, "invalid_request");
    expect(rep.issues).toEqual([{ path: "agent", message: "Given more than once." }]);
  });

  it("accepts JSON media types with parameters and +json suffixes", async () => {
    for (const type of ["application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json"]) {
      const res = await admin("/api/mcp/feed", { body: { title: `via ${type}` }, headers: { "Content-Type": type } });
      expect(res.status, type).toBe(200);
    }
  });
});

describe("404, 405", () => {
  it("404 for unknown routes and records, with rate headers once authenticated", async () => {
    for (const path of ["/api/mcp/nope", "/api/mcp", "/api/mcp/actions/act_01JD0000000000000000000000/extra", "/api/mcp/agents/"]) {
      const res = await admin(path);
      expectError(res, s.url, 404, "not_found");
      expectRateHeaders(res, 600);
    }
    const res = await admin("/api/mcp/actions/act_01JD0000000000000000000000", { method: "PATCH", body: { status: "done" } });
    expect(expectError(res, s.url, 404, "not_found").message).toContain("act_01JD0000000000000000000000");
    expectRateHeaders(res, 600);
  });

  it("405 with Allow for a known path and another method", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/api/mcp/agents", "GET, HEAD"],
      ["DELETE", "/api/mcp/briefing", "GET, HEAD"],
      ["PUT", "/api/mcp/standup", "GET, HEAD"],
      ["PATCH", "/api/mcp/suggestions", "GET, HEAD"],
      ["OPTIONS", "/api/mcp/dna", "GET, HEAD"],
      ["PUT", "/api/mcp/actions", "GET, HEAD, POST"],
      ["PUT", "/api/mcp/actions/act_01JD0000000000000000000000", "GET, HEAD, PATCH"],
      ["POST", "/api/mcp/actions/act_01JD0000000000000000000000", "GET, HEAD, PATCH"],
      ["PATCH", "/api/mcp/contacts", "GET, HEAD, POST"],
      ["PROPFIND", "/api/mcp/handoffs", "POST"],
      ["DELETE", "/api/mcp/feed", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await admin(path, { method });
      expectError(res, s.url, 405, "method_not_allowed");
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      expectRateHeaders(res, 600);
    }
    const head = await admin("/api/mcp/agents", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("api-version")).toBe("1.0.0");
  });
});

describe("413, 415", () => {
  it("413 over 256 KiB (exactly 256 KiB is fine), with Content-Length or streamed", async () => {
    const limit = 256 * 1024;
    const padded = (size: number) => {
      const head = '{"title":"Padded"';
      return `${head}${" ".repeat(size - head.length - 1)}}`;
    };
    const atLimit = await admin("/api/mcp/feed", { body: padded(limit) });
    expect(atLimit.status).toBe(200);
    const over = await admin("/api/mcp/feed", { body: padded(limit + 1) });
    expectError(over, s.url, 413, "payload_too_large");
    expectRateHeaders(over, 600);
    expectError(await admin("/api/mcp/actions", { body: "x".repeat(1 << 20) }), s.url, 413, "payload_too_large");

    // Streamed (chunked, no Content-Length): refused once the count passes the limit, and the
    // connection closes cleanly so the next requests on the pool still work.
    for (let round = 0; round < 3; round++) {
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 64; i++) controller.enqueue(new Uint8Array(16 * 1024).fill(32));
          controller.close();
        },
      });
      const res = await fetch(`${s.url}/api/mcp/feed`, {
        method: "POST",
        body: stream,
        headers: { Authorization: `Bearer ${adminKey}`, "Content-Type": "application/json" },
        duplex: "half",
      } as RequestInit);
      const text = await res.text();
      expect(res.status).toBe(413);
      expect(JSON.parse(text).error).toBe("payload_too_large");
      for (let i = 0; i < 3; i++) expect((await admin("/api/mcp/agents")).status).toBe(200);
    }
  });

  it("415 for a body that is not JSON, before reading it", async () => {
    const cases: (string | undefined)[] = [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "json",
      undefined,
    ];
    for (const type of cases) {
      const res = await fetch(`${s.url}/api/mcp/contacts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${adminKey}`, ...(type ? { "Content-Type": type } : {}) },
        body: new TextEncoder().encode('{"name":"Via wrong type"}'),
      });
      const text = await res.text();
      const reply = { status: res.status, headers: res.headers, json: JSON.parse(text), text };
      expectError(reply, s.url, 415, "unsupported_media_type");
      expectRateHeaders(reply, 600);
    }
  });
});

describe("X-Request-Id and API-Version", () => {
  it("echoes a valid X-Request-Id and generates one otherwise, on successes and errors", async () => {
    const ok = await admin("/api/mcp/agents", { headers: { "X-Request-Id": "client-42_a.b:c" } });
    expect(ok.headers.get("x-request-id")).toBe("client-42_a.b:c");
    const err = await admin("/api/mcp/nope", { headers: { "X-Request-Id": "trace-7" } });
    expect(err.json.request_id).toBe("trace-7");
    expect(err.headers.get("x-request-id")).toBe("trace-7");
    const seen = new Set<string>();
    for (const bad of ["has spaces", "x".repeat(129), "semi;colon", 'quote"d', "ünï"]) {
      const res = await fetch(`${s.url}/api/mcp/agents`, { headers: { "X-Request-Id": bad } });
      const id = res.headers.get("x-request-id") ?? "";
      expect(id).toMatch(/^req_[0-9A-Z]{26}$/);
      expect((await res.json()).request_id).toBe(id);
      seen.add(id);
    }
    expect(seen.size).toBe(5);
    const health = await fetch(`${s.url}/healthz`, { headers: { "X-Request-Id": "health-1" } });
    expect(health.headers.get("x-request-id")).toBe("health-1");
  });

  it("puts API-Version: 1.0.0 on every /api/mcp response, errors included", async () => {
    const replies = [
      await admin("/api/mcp/agents"),
      await api(s.url)("/api/mcp/agents"),
      await admin("/api/mcp/standup"),
      await admin("/api/mcp/nope"),
      await admin("/api/mcp/agents", { method: "POST", body: {} }),
    ];
    for (const r of replies) expect(r.headers.get("api-version")).toBe("1.0.0");
  });
});

describe("429", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({ env: { RATE_LIMIT_PER_HOUR: "3" } });
  });
  afterAll(() => limited.close());

  it("refuses past the hourly quota with the rate headers and Retry-After, shared by the user's keys, until the hour turns", async () => {
    limited.clock.set(Date.UTC(2026, 10, 22, 9, 45, 0));
    const c = await client(limited, "operator", ["read"]);
    const second = api(limited.url, await fastKey(limited, c.user, ["admin"]));
    const resetAt = String(Date.UTC(2026, 10, 22, 10, 0, 0) / 1000);
    const first = await c.call("/api/mcp/agents");
    expect([first.status, first.headers.get("x-ratelimit-remaining")]).toEqual([200, "2"]);
    expect(first.headers.get("x-ratelimit-reset")).toBe(resetAt);
    expect(first.headers.get("retry-after")).toBeNull();
    // Errors after authentication count too.
    const bad = await c.call("/api/mcp/standup?mode=noon");
    expect([bad.status, bad.headers.get("x-ratelimit-remaining")]).toEqual([400, "1"]);
    const third = await second("/api/mcp/dna");
    expect([third.status, third.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);

    limited.clock.advance(5 * MINUTE);
    for (const call of [c.call, second]) {
      const res = await call("/api/mcp/agents");
      expectError(res, limited.url, 429, "rate_limited");
      expect(res.headers.get("x-ratelimit-limit")).toBe("3");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(res.headers.get("x-ratelimit-reset")).toBe(resetAt);
      expect(res.headers.get("retry-after")).toBe(String(10 * 60));
    }
    // Quota comes before scope and input: a request that would be 403 or 400 is 429 now.
    expectError(await c.call("/api/mcp/actions", { body: "{broken" }), limited.url, 429, "rate_limited");
    // Another user has a quota of their own.
    expect((await (await client(limited, "pro", ["agents"])).call("/api/mcp/agents")).status).toBe(200);

    limited.clock.set(Date.UTC(2026, 10, 22, 10, 0, 0));
    const next = await c.call("/api/mcp/agents");
    expect([next.status, next.headers.get("x-ratelimit-remaining")]).toEqual([200, "2"]);
    expect(next.headers.get("x-ratelimit-reset")).toBe(String((Date.UTC(2026, 10, 22, 10, 0, 0) + HOUR) / 1000));
  });
});

describe("500", () => {
  it("is an internal_error envelope without stack or SQL", async () => {
    const broken = await startServer();
    const c = await client(broken, "operator", ["admin"]);
    broken.db.close();
    const res = await c.call("/api/mcp/agents");
    expect(res.status).toBe(500);
    expect(res.json.error).toBe("internal_error");
    expect(res.json.request_id).toBe(res.headers.get("x-request-id"));
    expect(res.text).not.toMatch(/SELECT|sqlite|libsql|postgres|\bat\s+\S+\s\(|\.ts:\d+/i);
    expect(envelopeProblems(res, broken.url).filter((p) => !p.startsWith("status"))).toEqual([]);
    await broken.close().catch(() => {});
  });
});
