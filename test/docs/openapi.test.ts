import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { EXTRA_ENDPOINTS } from "../../src/docs/endpoints.ts";
import { ERROR_CODES } from "../../src/docs/error-codes.ts";
import type { OpenApiDocument } from "../../src/docs/openapi.ts";
import { operations } from "../../src/operations/index.ts";
import { toHonoPath } from "../../src/rest/router.ts";
import { resolve } from "../helpers/contract.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let doc: OpenApiDocument;
beforeAll(async () => {
  s = await startServer();
  const res = await api(s.url)("/openapi.json");
  expect(res.status).toBe(200);
  doc = res.json;
});
afterAll(() => s.close());

const METHODS = ["get", "post", "put", "patch", "delete"];
const docOperations = (d: OpenApiDocument) =>
  Object.entries(d.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] })));

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1.0 document, version 1.0.0, served to any origin", async () => {
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers).toEqual([{ url: s.url }]);
    const res = await fetch(`${s.url}/openapi.json`);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("documents exactly the app's REST routes: everything under /api/ plus the extras, both ways", () => {
    const app = createApp(s.deps);
    // Method ALL: middleware and the 405/404 catch-alls, not endpoints.
    const routes = new Set(
      app.routes
        .filter((r) => r.method !== "ALL" && (r.path.startsWith("/api/") || EXTRA_ENDPOINTS.some((e) => toHonoPath(e.path) === r.path)))
        .map((r) => `${r.method} ${r.path}`),
    );
    const documented = new Set(docOperations(doc).map((o) => `${o.method.toUpperCase()} ${toHonoPath(o.path)}`));
    expect(
      [...routes].filter((r) => !documented.has(r)),
      "routes missing from the document",
    ).toEqual([]);
    expect(
      [...documented].filter((d) => !routes.has(d)),
      "documented operations the app does not serve",
    ).toEqual([]);
    expect(documented.size).toBeGreaterThan(10);
  });

  it("takes every operation's schemas, security and scopes from the registry", () => {
    for (const op of operations) {
      if (!op.rest) continue;
      const o = doc.paths[op.rest.path]?.[op.rest.method.toLowerCase()];
      expect(o, `${op.rest.method} ${op.rest.path}`).toBeDefined();
      expect(o.operationId).toBe(op.id);
      expect(o.responses["200"].content["application/json"].schema).toBeTypeOf("object");
      if (op.rest.auth === "session") {
        expect(o.security).toEqual([{ sessionCookie: [] }]);
        expect(o.responses["200"].headers["X-RateLimit-Limit"]).toBeUndefined();
      } else if (op.rest.access) {
        const { keyScopes, oauthScope } = op.rest.access;
        expect(o.security.filter((r: object) => "apiKey" in r)).toEqual(keyScopes.map((k) => ({ apiKey: [k] })));
        expect(o.security).toContainEqual({ oauth2: [oauthScope] });
        expect(o.security).toContainEqual({ oauth2: ["crew:admin"] });
        expect(o["x-crew-access"]).toMatchObject({ auth: "bearer", tier: op.rest.access.tier, oauthScope });
        expect(resolve(doc, o.responses["200"].headers["X-RateLimit-Remaining"]).required).toBe(true);
        expect(resolve(doc, o.responses["429"].headers["Retry-After"]).required).toBe(true);
        expect(resolve(doc, o.responses["401"].headers["WWW-Authenticate"]).required).toBe(true);
      }
      if (op.rest.path.startsWith("/api/mcp/")) expect(resolve(doc, o.responses["500"].headers["API-Version"]).required).toBe(true);
      for (const status of ["400", "401", "403", "404", "429", "500"]) expect(o.responses[status], `${op.id} ${status}`).toBeDefined();
      expect(o.description).toContain(op.description);
    }
  });

  it("declares the security schemes from BASE_URL and says where REST and MCP requirements differ", () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "crew_session" });
    expect(schemes.oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: `${s.url}/oauth/authorize`,
      tokenUrl: `${s.url}/oauth/token`,
    });
    expect(Object.keys(schemes.oauth2.flows.authorizationCode.scopes)).toEqual(["crew:read", "crew:write", "crew:admin"]);
    expect(schemes.oauth2.description).toContain("PKCE");
    const list = doc.paths["/api/mcp/actions"]?.get;
    expect(list.description).toContain("crew_list_actions");
    expect(doc.info.description).toContain("`GET /api/mcp/actions` — REST: API key with scope `admin`");
    for (const topic of ["### Quota", "### Pagination", "### Errors", "nextCursor", "X-RateLimit-Reset"]) {
      expect(doc.info.description).toContain(topic);
    }
  });

  it("describes every error with the envelope and only codes of the catalogue", () => {
    const known = new Set(ERROR_CODES.map((e) => e.code));
    for (const { op } of docOperations(doc)) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400 || Number(status) === 503) continue;
        expect(r.content["application/json"].schema).toEqual({ $ref: `#/components/schemas/Error${status}` });
        expect(resolve(doc, r.headers["X-Request-Id"]).required).toBe(true);
      }
    }
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      if (!/^Error\d+$/.test(name)) continue;
      for (const code of schema.allOf[1].properties.error.enum) expect(known.has(code), code).toBe(true);
    }
  });
});
