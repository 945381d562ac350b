import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertContract, ContractError } from "../helpers/contract.ts";
import { api, startServer, TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

const jsonHeaders = (extra: Record<string, string> = {}) =>
  new Headers({ "Content-Type": "application/json", "X-Request-Id": "req_1", "API-Version": "1.0.0", ...extra });
const rateHeaders = { "X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "599", "X-RateLimit-Reset": "1" };

describe("the contract hook", () => {
  it("rejects a body that does not match the schema, naming method, path, status and the validator's errors", () => {
    const check = () =>
      assertContract("GET", "http://x/api/mcp/agents?x=1", { status: 200, headers: jsonHeaders(rateHeaders), text: '{"total":"17"}' });
    expect(check).toThrow(ContractError);
    expect(check).toThrow(/GET \/api\/mcp\/agents → 200: the body does not match the documented schema/);
    expect(check).toThrow(/\/total must be number/);
    expect(check).toThrow(/must have required property 'agents'/);
  });

  it("rejects an undocumented status, an undocumented /api/ endpoint, a missing required header, a non-JSON body", () => {
    const error = JSON.stringify({ error: "not_found", message: "x", request_id: "r", docs_url: "http://x/docs/errors#not_found" });
    expect(() => assertContract("GET", "http://x/api/mcp/agents", { status: 418, headers: jsonHeaders(), text: "{}" })).toThrow(
      /status 418 is not documented for GET \/api\/mcp\/agents/,
    );
    expect(() => assertContract("GET", "http://x/api/mcp/nowhere", { status: 200, headers: jsonHeaders(), text: "{}" })).toThrow(
      /not in the document/,
    );
    expect(() =>
      assertContract("GET", "http://x/api/mcp/dna", {
        status: 404,
        headers: new Headers({ "Content-Type": "application/json" }),
        text: error,
      }),
    ).toThrow(/missing required header\(s\): X-Request-Id, API-Version, X-RateLimit-Limit/);
    expect(() =>
      assertContract("GET", "http://x/healthz", {
        status: 200,
        headers: new Headers({ "X-Request-Id": "r", "Content-Type": "text/plain" }),
        text: "ok",
      }),
    ).toThrow(/expected a JSON body/);
    // An error code that does not belong to the status.
    expect(() =>
      assertContract("GET", "http://x/api/mcp/nowhere", {
        status: 404,
        headers: jsonHeaders(),
        text: error.replace("not_found", "rate_limited"),
      }),
    ).toThrow(/\/error must be equal to one of the allowed values/);
  });

  it("accepts what the document declares, and leaves undocumented non-API paths alone", () => {
    const ok = JSON.stringify({ ok: true });
    expect(() => assertContract("GET", "http://x/healthz", { status: 200, headers: jsonHeaders(), text: ok })).not.toThrow();
    expect(() => assertContract("POST", "http://x/mcp", { status: 418, headers: new Headers(), text: "" })).not.toThrow();
  });

  describe("inside api()", () => {
    let fake: Server;
    let url: string;
    beforeAll(async () => {
      // A server that answers off-contract: api() must fail the test that called it.
      fake = createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": "application/json", "X-Request-Id": "r", "API-Version": "1.0.0", ...rateHeaders });
        res.end('{"briefing":1}');
      });
      await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

    it("fails the calling request on a mismatch, unless the test opts out", async () => {
      await expect(api(url, "crew_x")("/api/mcp/briefing")).rejects.toThrow(/GET \/api\/mcp\/briefing → 200: the body does not match/);
      const reply = await api(url, "crew_x", { contract: false })("/api/mcp/briefing");
      expect(reply.json).toEqual({ briefing: 1 });
    });
  });
});

describe("real responses outside the REST suite's reach", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "2" } });
  });
  afterAll(() => s.close());

  it("health, 404 and 405 answers match the document", async () => {
    const call = api(s.url);
    expect((await call("/healthz")).status).toBe(200);
    expect((await call("/readyz")).status).toBe(200);
    expect((await call("/api/mcp/nowhere")).status).toBe(401);
    const { key } = await s.userWithKey("operator", ["admin"]);
    expect((await api(s.url, key)("/api/mcp/nowhere")).status).toBe(404);
    const wrongMethod = await api(s.url, key)("/api/mcp/actions", { method: "PUT" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  it("session endpoints (sign-in, keys, grants, sign-out) match the document", async () => {
    const user = await s.createUser("operator");
    const origin = { Origin: s.url };
    const signIn = await api(s.url)("/api/auth/sign-in", { body: { email: user.email, password: TEST_PASSWORD }, headers: origin });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const call = api(s.url);
    const headers = { ...origin, Cookie: cookie };
    expect((await call("/api/auth/session", { headers })).status).toBe(200);
    const created = await call("/api/mcp/keys", { body: { name: "ci", scopes: ["read"] }, headers });
    expect(created.status).toBe(200);
    expect((await call("/api/mcp/keys", { headers })).json.keys).toHaveLength(1);
    expect((await call("/api/mcp/keys", { body: { name: "x", scopes: ["nope"] }, headers })).status).toBe(400);
    expect((await call(`/api/mcp/keys?hash=${created.json.hash}`, { method: "DELETE", headers })).status).toBe(200);
    expect((await call(`/api/mcp/keys?hash=${created.json.hash}`, { method: "DELETE", headers })).status).toBe(404);
    expect((await call("/api/oauth/grants", { headers })).status).toBe(200);
    expect(
      (await call("/api/mcp/keys", { body: { name: "x", scopes: ["read"] }, headers: { Cookie: cookie, Origin: "https://evil.example" } }))
        .status,
    ).toBe(403);
    expect((await call("/api/auth/sign-out", { body: {}, headers })).status).toBe(200);
    expect((await call("/api/auth/session", { headers })).status).toBe(401);
  });

  it("the quota's 429 matches the document, headers included", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    expect((await call("/api/mcp/agents")).status).toBe(200);
    expect((await call("/api/mcp/dna")).status).toBe(200);
    const refused = await call("/api/mcp/agents");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
