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
import { isLegacyRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { Hono, type MiddlewareHandler } from "hono";
import { protect } from "../auth/protect.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { isJsonMediaType, readBodyText } from "../http/body.ts";
import { anyOriginCors, MCP_CORS } from "../http/cors.ts";
import { ApiError } from "../http/errors.ts";
import { methodNotAllowed } from "../http/middleware.ts";
import { operations } from "../operations/index.ts";
import { chargeBatch } from "./batch-quota.ts";
import { iconRoutes } from "./icons.ts";
import { modernAuthInfo, modernHandler } from "./modern.ts";
import { checkProtocolVersion, hasTransportAccept, responseMode, TRANSPORT_ACCEPT } from "./negotiate.ts";
import { buildMcpServer, isSupportedProtocolVersion, PROTOCOL_VERSIONS } from "./server.ts";
import { SharedServerTransport } from "./shared-transport.ts";
import { callers, MAX_STREAMS_PER_USER, OrgSubscriptions } from "./subscriptions.ts";
import { buildToolCatalog } from "./tools.ts";

/** Both spellings answer the same: a redirect between them breaks clients (FIELD-NOTES). */
const PATHS = ["/mcp", "/mcp/"];

/** The transport's own limit, matching the REST body limit (SPEC §4). */
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
 * Whether the SDK's classification could call this request modern: only a body with the
 * per-request `_meta` envelope, a batch, or a 2026-era header can be. The common 2025 request skips
 * the classifier (its cost is per request), the rest get its exact verdict.
 */
function mayBeModern(header: string | undefined, body: unknown): boolean {
  if (Array.isArray(body) || (header !== undefined && !isSupportedProtocolVersion(header))) return true;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
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
  const subscriptions = new OrgSubscriptions(deps.db, (error) => deps.log.error("subscription poll failed", { error: String(error) }));
  const modern = modernHandler(deps, catalog, subscriptions);

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
      const batchHeaders = await chargeBatch(deps, principal, parsedBody);
      if (body && mayBeModern(c.req.header("mcp-protocol-version"), parsedBody) && !(await isLegacyRequest(c.req.raw, parsedBody))) {
        const caller = { principal, requestId: c.get("requestId") };
        if (isListen(parsedBody) && subscriptions.streamsOf(principal.userId) >= MAX_STREAMS_PER_USER) {
          return jsonRpcError(429, `At most ${MAX_STREAMS_PER_USER} subscription streams per user are open at once; close one first.`);
        }
        const headers = new Headers(c.req.raw.headers);
        if (!hasTransportAccept(accept)) headers.set("accept", TRANSPORT_ACCEPT);
        // The client's signal, so a stream ends when the client goes away.
        const request = new Request(c.req.raw.url, { method: "POST", headers, signal: c.req.raw.signal });
        const token = (c.req.header("authorization") ?? "").replace(/^Bearer\s+/i, "");
        const response = await callers.run({ principal }, () =>
          modern.fetch(request, { parsedBody, authInfo: modernAuthInfo(caller, token) }),
        );
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
        { principal: async () => principal, requestId: () => requestId, protocolVersion: () => protocolVersion },
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
