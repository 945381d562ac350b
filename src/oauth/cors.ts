/**
 * CORS for the endpoints browser-based MCP clients (MCP Inspector) call directly: metadata,
 * register, token, revoke (SPEC §6). Any origin, no credentials — nothing here reads the session
 * cookie, and pages that do (authorize, connected apps) never answer CORS. Preflights are answered
 * here; error responses get the headers too, because this runs after the handler whatever it did.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";

export const CORS_ALLOW_HEADERS = "Authorization, Content-Type, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID";
export const CORS_EXPOSE_HEADERS = "WWW-Authenticate, Mcp-Session-Id, X-Request-Id, Retry-After";

export function publicCors(methods: string[]): MiddlewareHandler<AppEnv> {
  const allowMethods = [...methods, "OPTIONS"].join(", ");
  return async function publicCorsMiddleware(c, next) {
    if (c.req.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Methods": allowMethods,
          "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
          "Access-Control-Max-Age": "86400",
        },
      });
    }
    await next();
    c.res.headers.set("Access-Control-Allow-Origin", "*");
    c.res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
  };
}
