/**
 * The one CORS helper (hono/cors underneath) for the endpoints browser-based MCP clients (MCP
 * Inspector) call directly: /mcp, OAuth metadata, register, token, revoke. Any origin, no
 * credentials: none of these reads the session cookie (they authenticate by Bearer header or
 * client credentials), so `*` grants nothing; pages that use the cookie never answer CORS.
 * Preflights are answered here; actual responses, errors included, carry the headers too.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../deps.ts";

export interface CorsRules {
  /** The methods the endpoint answers; OPTIONS is added. */
  methods: string[];
  /** Request headers a browser client may send. */
  allowHeaders: string[];
  /** Response headers a browser client may read (WWW-Authenticate for the 401 challenge, ...). */
  exposeHeaders: string[];
}

/** OAuth's public JSON endpoints. */
export const OAUTH_CORS: Omit<CorsRules, "methods"> = {
  allowHeaders: ["Authorization", "Content-Type", "MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"],
  exposeHeaders: ["WWW-Authenticate", "Mcp-Session-Id", "X-Request-Id", "Retry-After"],
};

/** Streamable HTTP at /mcp: the MCP headers plus the quota headers a client backs off by. */
export const MCP_CORS: CorsRules = {
  // GET and DELETE are allowed through the preflight so a browser client sees our 405, not a CORS failure.
  methods: ["POST", "GET", "DELETE"],
  allowHeaders: [
    "Authorization",
    "Content-Type",
    "Accept",
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "Mcp-Session-Id",
    "X-MCP-Readonly",
    "X-MCP-Toolsets",
    "Last-Event-ID",
  ],
  exposeHeaders: [
    "WWW-Authenticate",
    "Mcp-Session-Id",
    "X-Request-Id",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Retry-After",
  ],
};

/** hono/cors joins lists with a bare comma; the lists are joined here to keep the `, ` spelling. */
const list = (items: string[]) => (items.length > 0 ? [items.join(", ")] : []);

/**
 * Preflights through hono/cors; an actual response gets its two headers after the handler. hono/cors
 * sets them on `c.res` before the handler runs, and Hono then copies the handler's response into a
 * new one (its body re-wrapped as a stream): that cost about 150 µs of CPU on every /mcp call
 * (src/docs/notes/benchmark.md).
 */
export function anyOriginCors(rules: CorsRules): MiddlewareHandler<AppEnv> {
  const preflight = cors({
    origin: "*",
    allowMethods: list([...rules.methods, "OPTIONS"]),
    allowHeaders: list(rules.allowHeaders),
    exposeHeaders: list(rules.exposeHeaders),
    maxAge: 86_400,
  });
  const actual: [string, string][] = [
    ["Access-Control-Allow-Origin", "*"],
    ...list(rules.exposeHeaders).map((v): [string, string] => ["Access-Control-Expose-Headers", v]),
  ];
  return async function anyOriginCors(c, next) {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    for (const [name, value] of actual) c.res.headers.set(name, value);
  };
}
