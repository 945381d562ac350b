/** /mcp at the HTTP level: authentication, Origin, methods, CORS, protocol versions, quota. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/random.ts";
import { revokeApiKey } from "../../src/store/auth/api-keys.ts";
import { INIT, mcpPost } from "../helpers/mcp.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const ALLOWED = "http://localhost:6274";
let s: TestServer;
let key: string;
let bearer: Record<string, string>;

beforeAll(async () => {
  s = await startServer({ env: { ALLOWED_ORIGINS: ALLOWED, RATE_LIMIT_PER_HOUR: "25" } });
  ({ key } = await s.userWithKey("operator", ["admin"]));
  bearer = { Authorization: `Bearer ${key}` };
});
afterAll(() => s.close());

const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" };

describe("authentication", () => {
  it("answers initialize without a credential with 401 and the /mcp resource_metadata challenge with scope", async () => {
    const res = await mcpPost(s.url, INIT);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="crew", scope="crew:read crew:write", resource_metadata="${s.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.json).toMatchObject({ error: "unauthorized" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers an unknown key with invalid_token in the challenge", async () => {
    const res = await mcpPost(s.url, listTools, { Authorization: "Bearer crew_nope" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(res.headers.get("www-authenticate")).toContain("/.well-known/oauth-protected-resource/mcp");
  });

  it("initializes with a key, statelessly: no session id, JSON response, rate-limit headers", async () => {
    const res = await mcpPost(s.url, INIT, bearer);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.headers.get("x-ratelimit-limit")).toBe("25");
    expect(res.json.result).toMatchObject({ protocolVersion: "2025-11-25", serverInfo: { name: "crew" } });
  });

  it("refuses a revoked key on the next MCP request", async () => {
    const { user } = await s.userWithKey("operator", ["admin"]);
    const other = await s.createKey(user, ["admin"]);
    expect((await mcpPost(s.url, listTools, { Authorization: `Bearer ${other}` })).status).toBe(200);
    expect(await revokeApiKey(s.db, user.id, sha256Hex(other), s.clock.now())).toBe(true);
    const res = await mcpPost(s.url, listTools, { Authorization: `Bearer ${other}` });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: "invalid_token" });
  });
});

describe("protocol", () => {
  it("negotiates only Crew's versions at initialize", async () => {
    for (const asked of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
      const res = await mcpPost(s.url, { ...INIT, params: { ...INIT.params, protocolVersion: asked } }, bearer);
      expect(res.json.result.protocolVersion).toBe(asked);
    }
    const old = await mcpPost(s.url, { ...INIT, params: { ...INIT.params, protocolVersion: "2024-11-05" } }, bearer);
    expect(old.json.result.protocolVersion).toBe("2025-11-25");
  });

  it("takes a missing MCP-Protocol-Version header as 2025-03-26 and refuses an unsupported one with 400", async () => {
    expect((await mcpPost(s.url, listTools, bearer)).status).toBe(200);
    expect((await mcpPost(s.url, listTools, { ...bearer, "MCP-Protocol-Version": "2025-06-18" })).status).toBe(200);
    for (const version of ["2024-11-05", "1999-01-01"]) {
      const res = await mcpPost(s.url, listTools, { ...bearer, "MCP-Protocol-Version": version });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toContain("2025-11-25, 2025-06-18, 2025-03-26");
    }
  });

  it("answers notifications with 202 and no body", async () => {
    const res = await mcpPost(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, bearer);
    expect(res.status).toBe(202);
    expect(res.text).toBe("");
  });

  it("answers GET and DELETE with 405 and Allow, never a stream", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${s.url}/mcp`, { method, headers: { ...bearer, Accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST, OPTIONS");
      expect(res.headers.get("content-type")).toContain("application/json");
      expect((await res.json()).error).toBe("method_not_allowed");
    }
  });

  it("serves /mcp/ the same as /mcp, without a redirect", async () => {
    const res = await mcpPost(s.url, listTools, bearer, "/mcp/");
    expect(res.status).toBe(200);
    expect(res.json.result.tools.length).toBe(16);
    const anon = await mcpPost(s.url, INIT, {}, "/mcp/");
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toContain("/.well-known/oauth-protected-resource/mcp");
  });

  it("refuses an Accept that takes neither JSON nor SSE (406) and a body that is not JSON (415)", async () => {
    expect((await mcpPost(s.url, listTools, { ...bearer, Accept: "text/html" })).status).toBe(406);
    expect((await mcpPost(s.url, listTools, { ...bearer, "Content-Type": "text/plain" })).status).toBe(415);
  });
});

describe("Origin and CORS", () => {
  it("refuses a foreign Origin with 403 before anything else, with CORS headers", async () => {
    const res = await mcpPost(s.url, INIT, { ...bearer, Origin: "http://evil.example.com" });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: "forbidden" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect((await mcpPost(s.url, INIT, { Origin: "http://evil.example.com" })).status).toBe(403);
  });

  it("accepts BASE_URL's origin, an ALLOWED_ORIGINS entry, and no Origin", async () => {
    for (const origin of [s.url, ALLOWED]) {
      expect((await mcpPost(s.url, INIT, { ...bearer, Origin: origin })).status).toBe(200);
    }
    expect((await mcpPost(s.url, INIT, bearer)).status).toBe(200);
  });

  it("answers a preflight from any origin with the MCP headers", async () => {
    const res = await fetch(`${s.url}/mcp`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://inspector.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    for (const h of ["authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"])
      expect(allowed).toContain(h);
  });

  it("exposes WWW-Authenticate and Mcp-Session-Id on actual responses", async () => {
    const res = await mcpPost(s.url, INIT, { Origin: ALLOWED });
    const exposed = res.headers.get("access-control-expose-headers")?.toLowerCase() ?? "";
    expect(exposed).toContain("www-authenticate");
    expect(exposed).toContain("mcp-session-id");
  });
});

describe("quota", () => {
  it("counts /mcp requests against the same hourly quota as REST", async () => {
    const { user, key: own } = await s.userWithKey("operator", ["admin"]);
    const first = await mcpPost(s.url, listTools, { Authorization: `Bearer ${own}` });
    expect(first.headers.get("x-ratelimit-remaining")).toBe("24");
    const rest = await api(s.url, own)("/api/mcp/agents");
    expect(rest.headers.get("x-ratelimit-remaining")).toBe("23");
    const second = await s.createKey(user, ["read"]);
    let last = await mcpPost(s.url, listTools, { Authorization: `Bearer ${second}` });
    expect(last.headers.get("x-ratelimit-remaining")).toBe("22");
    for (let i = 0; i < 22; i++) last = await mcpPost(s.url, listTools, { Authorization: `Bearer ${own}` });
    expect(last.status).toBe(200);
    const refused = await mcpPost(s.url, listTools, { Authorization: `Bearer ${own}` });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.json).toMatchObject({ error: "rate_limited" });
  });
});
