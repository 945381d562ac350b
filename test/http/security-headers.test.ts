/**
 * Pages (HTML, error pages, redirects between pages) carry the security headers Crew has always
 * sent, now set by hono/secure-headers (src/http/security-headers.ts): exactly these values, no
 * header the middleware would add by default, and nothing on machine responses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
};
/** hono/secure-headers defaults Crew switches off: HSTS belongs to the TLS proxy; the rest were never sent. */
const NEVER = [
  "strict-transport-security",
  "cross-origin-resource-policy",
  "origin-agent-cluster",
  "x-dns-prefetch-control",
  "x-download-options",
  "x-permitted-cross-domain-policies",
  "x-xss-protection",
];

function expectPageHeaders(res: Response) {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers.get(name), name).toBe(value);
  for (const name of NEVER) expect(res.headers.get(name), name).toBeNull();
}

describe("page security headers", () => {
  it("are on a page, its no-store kept", async () => {
    const res = await fetch(`${s.url}/sign-in`);
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("are on an HTML error page and on a redirect to sign-in", async () => {
    const missing = await fetch(`${s.url}/no-such-page`, { headers: { Accept: "text/html" } });
    expect(missing.status).toBe(404);
    expectPageHeaders(missing);
    const redirect = await fetch(`${s.url}/dashboard`, { redirect: "manual" });
    expect(redirect.status).toBe(303);
    expectPageHeaders(redirect);
  });

  it("are not on JSON answers", async () => {
    const res = await fetch(`${s.url}/healthz`);
    expect(res.headers.get("content-security-policy")).toBeNull();
    expect(res.headers.get("x-frame-options")).toBeNull();
  });
});
