/**
 * The SDK v2 HTTP entries over the one factory (server.ts), one per era; routes.ts picks the era
 * once, by the SDK's own classification (`isLegacyRequest`), and hands the body over parsed.
 *
 * - 2026-07-28: `createMcpHandler(factory, { legacy: "reject" })` does that revision's protocol
 *   work — `server/discover`, the envelope, the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name`
 *   checks against the body, `UnsupportedProtocolVersion`, `ttlMs`/`cacheScope` — and
 *   `subscriptions/listen` streams (one entry per stream, with its caller's bus, subscriptions.ts,
 *   so shutdown can end streams without cutting short a call in flight).
 * - 2025 revisions: the same factory's legacy instance on the SDK's web-standard transport,
 *   stateless (no session id), as the SDK's own stateless fallback serves it, but answering JSON
 *   unless the client accepts only SSE (negotiate.ts); the SDK's fallback always streams. The
 *   transport owns Content-Type (415), the body limit (413), batches and the MCP-Protocol-Version
 *   header (400 for a version the server does not list, except on `initialize`).
 *
 * The caller arrives as `authInfo` from the gate, for either era.
 */
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  type McpRequestContext,
  type McpServerFactory,
  type ServerEventBus,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { McpCaller } from "./caller.ts";

/** The transports' own limit, matching the REST body limit (src/docs/notes/rest-api.md). */
export const MAX_BODY_BYTES = 256 * 1024;

/** An `authInfo` carrying the gate's caller (the SDK passes it through untouched). */
export const callerAuthInfo = (caller: McpCaller, clientId: string, token: string): AuthInfo => ({
  token,
  clientId,
  scopes: [],
  extra: { crew: caller },
});

/** The caller the gate put in `authInfo`. */
export function httpCallerOf(context: McpRequestContext): McpCaller {
  const caller = context.authInfo?.extra?.crew as McpCaller | undefined;
  if (!caller) throw new Error("MCP request without a caller: the gate runs first");
  return caller;
}

export interface HttpEntries {
  /** Every 2026-07-28 exchange but `subscriptions/listen`. */
  modern: McpHttpHandler;
  /** The entry of one `subscriptions/listen` stream, with the bus of its caller. */
  stream(bus: ServerEventBus): McpHttpHandler;
  /** One 2025-era POST, answered as JSON or as one short SSE stream. */
  legacy(request: Request, options: { parsedBody: unknown; authInfo: AuthInfo; json: boolean }): Promise<Response>;
}

export function httpEntries(factory: McpServerFactory): HttpEntries {
  const options = { legacy: "reject", responseMode: "auto", maxRequestBodySize: MAX_BODY_BYTES } as const;
  return {
    modern: createMcpHandler(factory, options),
    stream: (bus) => createMcpHandler(factory, { ...options, bus }),
    async legacy(request, { parsedBody, authInfo, json }) {
      const server = await factory({ era: "legacy", authInfo, requestInfo: request });
      // No keep-alive: the stream of a stateless request ends with its last response.
      const transport = new WebStandardStreamableHTTPServerTransport({
        enableJsonResponse: json,
        keepAliveMs: 0,
        maxRequestBodySize: MAX_BODY_BYTES,
      });
      await server.connect(transport);
      // Not closed afterwards: once its responses are written (a JSON body, or an SSE stream the
      // transport ends after the last one, with no keep-alive timer) nothing of this server or
      // transport is referenced, and closing costs ≈ 3 % of a call (it builds an error per
      // pending handler), src/docs/notes/benchmark.md#one-server-for-both-eras.
      return transport.handleRequest(request, { ...(parsedBody !== undefined && { parsedBody }), authInfo });
    },
  };
}
