/**
 * `{base}/mcp`: Streamable HTTP on the SDK's web-standard transport, stateless (a transport per
 * request feeding one shared server, see shared-transport.ts; JSON responses unless the client
 * accepts only SSE, no session id). Guards in the order they apply:
 *
 *   CORS (every response; preflight answered here) → Origin (403, DNS rebinding) → method (405)
 *   → credential (401) → quota (429; a batch's further requests, see batch-quota.ts) → Accept (406)
 *   → MCP-Protocol-Version (400, see negotiate.ts)
 *   → transport (415/413/…) → tools.
 *
 * CORS and the Origin check combine as follows: a preflight is answered for any origin (it grants
 * nothing by itself), and every response carries CORS headers so a browser client can read errors,
 * but a request that carries an Origin must come from BASE_URL's origin or one in ALLOWED_ORIGINS.
 * Browser clients such as MCP Inspector (http://localhost:6274) therefore work once their origin is
 * listed in ALLOWED_ORIGINS; server-side clients send no Origin and are not affected.
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isLegacyRequest, type McpHttpHandler, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { Hono, type MiddlewareHandler } from "hono";
import { protect } from "../auth/protect.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { isJsonMediaType, readBodyText } from "../http/body.ts";
import { anyOriginCors, MCP_CORS } from "../http/cors.ts";
import { methodNotAllowed } from "../http/middleware.ts";
import { operations } from "../operations/index.ts";
import { chargeBatch } from "./batch-quota.ts";
import { iconRoutes } from "./icons.ts";
import { MODERN_PROTOCOL_VERSION, modernAuthInfo, modernHandlers } from "./modern.ts";
import { checkProtocolVersion, hasTransportAccept, responseMode, TRANSPORT_ACCEPT } from "./negotiate.ts";
import { buildMcpServer, isSupportedProtocolVersion, PROTOCOL_VERSIONS } from "./server.ts";
import { SharedServerTransport } from "./shared-transport.ts";
import { MAX_STREAMS_PER_USER, takeStreamSlot } from "./stream-slots.ts";
import { OrgSubscriptions } from "./subscriptions.ts";
import { buildToolCatalog } from "./tools.ts";
import { viewOf } from "./toolsets.ts";

/**
 * Both spellings answer the same: a redirect between them breaks clients (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions).
 * The read-only and toolset endpoints are the same server with a narrower view (toolsets.ts).
 */
const PATHS = ["/mcp", "/mcp/", "/mcp/readonly", "/mcp/x/:toolset", "/mcp/x/:toolset/readonly"];

/** The transport's own limit, matching the REST body limit (src/docs/notes/rest-api.md). */
const MAX_BODY_BYTES = 256 * 1024;

function originGuard(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const allowed = new Set([new URL(deps.config.baseUrl).origin, ...deps.config.allowedOrigins]);
  return async function mcpOriginGuard(c, next) {
    const origin = c.req.header("origin");
    // No Origin: a server-side client (or a same-origin GET); a DNS-rebinding page always sends one.
    if (origin !== undefined && !allowed.has(origin)) {
      throw new ApiError(
        403,
        "forbidden",
        `Requests from origin ${origin} are not allowed; the server operator can add it to ALLOWED_ORIGINS.`,
      );
    }
    await next();
  };
}

/** JSON-RPC error body, as the transport writes its own protocol-level refusals. */
const jsonRpcError = (status: number, message: string, code = -32000) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json" },
  });

/**
 * Which era the SDK's classification would give this request, where that is certain without it
 * (its cost is per request): only a body with the per-request `_meta` envelope, a batch, or a
 * 2026-era header can be modern; a single request or notification under the 2026-07-28 header is
 * served as modern or refused, which the modern entry does too. The rest get its exact verdict.
 */
function eraOf(header: string | undefined, body: unknown): "legacy" | "modern" | "ask" {
  if (Array.isArray(body)) return "ask";
  const message = body as { method?: unknown; params?: { _meta?: Record<string, unknown> } } | null;
  if (header === MODERN_PROTOCOL_VERSION && typeof message?.method === "string") return "modern";
  if (header !== undefined && !isSupportedProtocolVersion(header)) return "ask";
  const meta = message?.params?._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta ? "ask" : "legacy";
}

const isListen = (body: unknown) =>
  typeof body === "object" && body !== null && (body as { method?: unknown }).method === "subscriptions/listen";

type BodyRead = { ok: true; parsed: unknown } | { ok: false; response: Response } | null;

/**
 * Reads and parses a JSON body once, here, and hands it to the transport as `parsedBody` (one read
 * off the socket on Node, no clone). Not JSON by media type: left to the transport (415).
 */
async function readMessage(request: Request): Promise<BodyRead> {
  if (!isJsonMediaType(request.headers.get("content-type"))) return null;
  let text: string;
  try {
    text = await readBodyText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, response: jsonRpcError(error.status, error.message) };
    throw error;
  }
  try {
    return { ok: true, parsed: JSON.parse(text) };
  } catch {
    return { ok: false, response: jsonRpcError(400, "Parse error: Invalid JSON", -32700) };
  }
}

export function mcpRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const catalog = buildToolCatalog(operations, deps.config.baseUrl);
  const gate = protect(deps);
  const shared = new SharedServerTransport();
  const server = buildMcpServer(deps, catalog, (extra) => shared.sessionOf(extra.requestId));
  const connected = server.connect(shared);
  const subscriptions = new OrgSubscriptions(deps.db, deps.clock, (error) =>
    deps.log.error("subscription poll failed", { error: String(error) }),
  );
  const modern = modernHandlers(deps, catalog);
  /** The entry of each open subscription stream (one per stream, with its caller's bus). */
  const streams = new Set<McpHttpHandler>();
  // Shutdown: open streams end now (each client gets the empty listen result), so they do not hold
  // their connections until the entry's deadline; calls in flight are answered as usual.
  deps.stopping?.addEventListener(
    "abort",
    () => void Promise.all([...streams].map((h) => h.close())).finally(() => subscriptions.close()),
    { once: true },
  );

  router.route("/", iconRoutes());
  for (const path of PATHS) {
    router.use(path, anyOriginCors(MCP_CORS), originGuard(deps));
    router.post(path, gate, async function mcpEndpoint(c) {
      const accept = c.req.header("accept");
      const mode = responseMode(accept);
      if (mode === null) {
        return jsonRpcError(406, "Not Acceptable: accept application/json or text/event-stream (preferably both).");
      }
      const body = await readMessage(c.req.raw);
      if (body && !body.ok) return body.response;
      const parsedBody = body?.parsed;
      const principal = c.get("principal");
      const view = viewOf(c.req.path, { readonly: c.req.header("x-mcp-readonly"), toolsets: c.req.header("x-mcp-toolsets") });
      const batchHeaders = await chargeBatch(deps, principal, parsedBody);
      const era = body ? eraOf(c.req.header("mcp-protocol-version"), parsedBody) : "legacy";
      if (era === "modern" || (era === "ask" && !(await isLegacyRequest(c.req.raw, parsedBody)))) {
        const caller = { principal, requestId: c.get("requestId"), view };
        const listen = isListen(parsedBody);
        if (listen && deps.stopping?.aborted) {
          return jsonRpcError(503, "The server is shutting down; open the subscription again in a moment.");
        }
        // The slot is taken before anything else of the stream, atomically (stream-slots.ts).
        const slot = listen ? await takeStreamSlot(deps, principal.userId) : null;
        if (listen && !slot) {
          return jsonRpcError(429, `At most ${MAX_STREAMS_PER_USER} subscription streams per user are open at once; close one first.`);
        }
        // The body is handed over parsed, so the request itself serves as is unless its Accept needs
        // rewriting; a rewritten one keeps the client's signal, so a stream ends when the client goes away.
        let request = c.req.raw;
        if (!hasTransportAccept(accept)) {
          const headers = new Headers(c.req.raw.headers);
          headers.set("accept", TRANSPORT_ACCEPT);
          request = new Request(c.req.raw.url, { method: "POST", headers, signal: c.req.raw.signal });
        }
        const token = (c.req.header("authorization") ?? "").replace(/^Bearer\s+/i, "");
        const authInfo = modernAuthInfo(caller, token);
        let response: Response;
        if (slot) {
          const done = () => {
            streams.delete(stream);
            void slot.release().catch((error) => deps.log.error("stream slot release failed", { error: String(error) }));
          };
          const bus = subscriptions.busFor(principal, { ended: done, end: () => void stream.close() });
          let subscribed = false;
          const stream = modern.stream({
            publish: bus.publish,
            subscribe: (deliver) => {
              subscribed = true;
              return bus.subscribe(deliver);
            },
          });
          streams.add(stream);
          try {
            response = await stream.fetch(request, { parsedBody, authInfo });
          } finally {
            // Refused, or with nothing to listen for: that stream has ended already.
            if (!subscribed) done();
          }
        } else {
          response = await modern.requests.fetch(request, { parsedBody, authInfo });
        }
        if (batchHeaders) for (const [name, value] of Object.entries(batchHeaders)) response.headers.set(name, value);
        return response;
      }
      const version = checkProtocolVersion(c.req.raw, parsedBody);
      if (version.kind === "unsupported") {
        return jsonRpcError(
          400,
          `Bad Request: unsupported MCP-Protocol-Version ${version.version} (supported: ${PROTOCOL_VERSIONS.join(", ")}).`,
        );
      }
      // The common case (the SDK client) passes through untouched; otherwise the headers the
      // transport checks are rewritten to what negotiation above already decided.
      let request = c.req.raw;
      if (!hasTransportAccept(accept) || version.kind === "initialize") {
        const headers = new Headers(request.headers);
        headers.set("accept", TRANSPORT_ACCEPT);
        if (version.kind === "initialize") headers.delete("mcp-protocol-version");
        // The body was read above (or is not JSON and is refused by the transport before it is read).
        request = body ? new Request(request.url, { method: "POST", headers }) : new Request(request, { headers });
      }
      const requestId = c.get("requestId");
      await connected;
      const transport = new WebStandardStreamableHTTPServerTransport({
        enableJsonResponse: mode === "json",
        maxRequestBodySize: MAX_BODY_BYTES,
      });
      // Without the header a client speaks 2025-03-26 (MCP 2025-06-18, "Protocol Version Header").
      const protocolVersion = c.req.header("mcp-protocol-version") ?? "2025-03-26";
      shared.attach(
        transport,
        { principal: async () => principal, requestId: () => requestId, protocolVersion: () => protocolVersion, view: () => view },
        `${principal.credential.type}:${principal.credential.id}`,
      );
      // No close(): once the responses are written nothing stays open (a JSON body, or an SSE stream
      // the transport ends after the last response, no keep-alive timer); the shared transport
      // forgets each request as its response is sent, and this transport is garbage after that.
      const response = await transport.handleRequest(request, body ? { parsedBody } : undefined);
      if (batchHeaders) for (const [name, value] of Object.entries(batchHeaders)) response.headers.set(name, value);
      return response;
    });
    // GET would open an SSE stream that never ends, DELETE ends a session that stateless mode never has.
    router.all(path, methodNotAllowed(["POST", "OPTIONS"]));
  }
  return router;
}
