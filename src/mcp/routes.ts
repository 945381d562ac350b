/**
 * `{base}/mcp`: Streamable HTTP, stateless (a server per request from the one factory, server.ts,
 * on the SDK's entries, http-serving.ts; JSON responses unless the client accepts only SSE, no
 * session id). Guards in the order they apply, each with one owner:
 *
 *   CORS (every response; preflight answered here) → Origin (403, DNS rebinding) → method (405)
 *   → credential (401) → quota (429; a batch's further requests, see batch-quota.ts) → Accept (406,
 *   the shim for real clients, negotiate.ts) → body (413, invalid JSON) → era (the SDK's
 *   classification) → the era's entry: MCP-Protocol-Version, Content-Type (415), the envelope → tools.
 *
 * CORS and the Origin check combine as follows: a preflight is answered for any origin (it grants
 * nothing by itself), and every response carries CORS headers so a browser client can read errors,
 * but a request that carries an Origin must come from BASE_URL's origin or one in ALLOWED_ORIGINS.
 * Browser clients such as MCP Inspector (http://localhost:6274) therefore work once their origin is
 * listed in ALLOWED_ORIGINS; server-side clients send no Origin and are not affected.
 */

import { isLegacyRequest, type McpHttpHandler } from "@modelcontextprotocol/server";
import { Hono, type MiddlewareHandler } from "hono";
import { protect } from "../auth/protect.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { isJsonMediaType, readBodyText } from "../http/body.ts";
import { anyOriginCors, MCP_CORS } from "../http/cors.ts";
import { methodNotAllowed } from "../http/middleware.ts";
import { operations } from "../operations/index.ts";
import { chargeBatch } from "./batch-quota.ts";
import type { McpCaller } from "./caller.ts";
import { Cancellations } from "./cancellations.ts";
import { callerAuthInfo, httpCallerOf, httpEntries, MAX_BODY_BYTES } from "./http-serving.ts";
import { iconRoutes } from "./icons.ts";
import { hasTransportAccept, responseMode, TRANSPORT_ACCEPT } from "./negotiate.ts";
import { MODERN_PROTOCOL_VERSION, mcpServerFactory } from "./server.ts";
import { MAX_STREAMS_PER_USER, takeStreamSlot } from "./stream-slots.ts";
import { OrgSubscriptions } from "./subscriptions.ts";
import { buildToolCatalog } from "./tools.ts";
import { viewOf } from "./toolsets.ts";

/**
 * Both spellings answer the same: a redirect between them breaks clients (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions).
 * The read-only and toolset endpoints are the same server with a narrower view (toolsets.ts).
 */
const PATHS = ["/mcp", "/mcp/", "/mcp/readonly", "/mcp/x/:toolset", "/mcp/x/:toolset/readonly"];

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
  const entries = httpEntries(mcpServerFactory(deps, catalog, { callerOf: httpCallerOf, cancellations: new Cancellations() }));
  const subscriptions = new OrgSubscriptions(deps.db, deps.clock, (error) =>
    deps.log.error("subscription poll failed", { error: String(error) }),
  );
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
      // The era, decided once by the SDK's own classification; a body that is not JSON by media
      // type is the 2025 transport's to refuse (415).
      const legacy = !body || (await isLegacyRequest(c.req.raw, parsedBody));
      const header = c.req.header("mcp-protocol-version");
      const requestId = c.get("requestId");
      const caller: McpCaller = {
        principal: async () => principal,
        requestId: () => requestId,
        view,
        // Without the header a client speaks 2025-03-26 (MCP 2025-06-18, "Protocol Version Header").
        protocolVersion: legacy ? (header ?? "2025-03-26") : MODERN_PROTOCOL_VERSION,
        cancelKey: `${principal.credential.type}:${principal.credential.id}`,
      };
      const token = (c.req.header("authorization") ?? "").replace(/^Bearer\s+/i, "");
      const authInfo = callerAuthInfo(caller, principal.credential.id, token);
      // The body is handed over parsed, so the request itself serves as is unless its Accept needs
      // rewriting for the transport (the shim for real clients, negotiate.ts); a rewritten one keeps
      // the client's signal, so a stream ends when the client goes away.
      let request = c.req.raw;
      if (!hasTransportAccept(accept)) {
        const headers = new Headers(request.headers);
        headers.set("accept", TRANSPORT_ACCEPT);
        request = body ? new Request(request.url, { method: "POST", headers, signal: request.signal }) : new Request(request, { headers });
      }
      let response: Response;
      if (legacy) {
        response = await entries.legacy(request, { parsedBody, authInfo, json: mode === "json" });
      } else if (isListen(parsedBody)) {
        if (deps.stopping?.aborted) return jsonRpcError(503, "The server is shutting down; open the subscription again in a moment.");
        // The slot is taken before anything else of the stream, atomically (stream-slots.ts).
        const slot = await takeStreamSlot(deps, principal.userId);
        if (!slot) {
          return jsonRpcError(429, `At most ${MAX_STREAMS_PER_USER} subscription streams per user are open at once; close one first.`);
        }
        const done = () => {
          streams.delete(stream);
          void slot.release().catch((error) => deps.log.error("stream slot release failed", { error: String(error) }));
        };
        const bus = subscriptions.busFor(principal, { ended: done, end: () => void stream.close() });
        let subscribed = false;
        const stream = entries.stream({
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
        response = await entries.modern.fetch(request, { parsedBody, authInfo });
      }
      if (batchHeaders) for (const [name, value] of Object.entries(batchHeaders)) response.headers.set(name, value);
      return response;
    });
    // GET would open an SSE stream that never ends, DELETE ends a session that stateless mode never has.
    router.all(path, methodNotAllowed(["POST", "OPTIONS"]));
  }
  return router;
}
