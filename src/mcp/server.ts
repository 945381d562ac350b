/**
 * The one MCP server of both eras: an SDK v2 factory (`McpServerFactory`) that builds a low-level
 * `Server` for one serving unit — one HTTP request of either era (routes.ts, http-serving.ts), or one
 * stdio connection (stdio.ts) — with every tool, resource, prompt and completion handler
 * registered here, once. The era comes from the SDK's own classification, in the factory's
 * context (`era`); what differs by era is data, not handlers:
 *
 *   - legacy (2025-11-25, 2025-06-18, 2025-03-26): `initialize` negotiates only those versions
 *     (the SDK also speaks 2024 ones; Crew does not, so they are negotiated up, and the transport
 *     refuses them in a header), `logging` is offered, `resource_link` follows the request's
 *     version, and on stateless HTTP a cancellation reaches its request through cancellations.ts;
 *   - modern (2026-07-28): cache hints, subscriptions, the tasks extension and confirmations
 *     (confirmations.ts).
 *
 * Everything that does not depend on the caller (server info, the resource catalog, the apps) is
 * built once per process; a server costs ≈ 12 µs to build (src/docs/notes/benchmark.md#building-the-server-per-request).
 */
import { type CallToolResult, type McpRequestContext, type McpServerFactory, type RequestId, Server } from "@modelcontextprotocol/server";
import * as v from "valibot";
import type { AppDeps } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { API_VERSION } from "../http/middleware.ts";
import { operations } from "../operations/index.ts";
import { appsOffered, mcpApps, withAppMeta } from "./apps/documents.ts";
import type { McpCaller } from "./caller.ts";
import type { Cancellations } from "./cancellations.ts";
import { complete } from "./completions.ts";
import { confirmationFor } from "./confirmations.ts";
import { icons } from "./icons.ts";
import { emptyToolsExplanation, instructionsFor } from "./instructions.ts";
import { getPrompt, listPrompts, PROMPTS } from "./prompts.ts";
import { INVALID_PARAMS, INVALID_REQUEST, protocolError } from "./protocol-error.ts";
import { buildResourceCatalog, listResources, listResourceTemplates, RESOURCE_NOT_FOUND, readResource } from "./resources.ts";
import { missingCapability, TASK_TOOLS, TASKS_EXTENSION, TaskStore, taskOwner, tasksDeclared } from "./tasks.ts";
import { callTool, type McpTool, resultFeatures, toolError, viewRefusal, visibleTools } from "./tools.ts";

/** src/docs/notes/mcp-clients.md. The SDK also speaks 2024 versions; Crew does not, so they are refused or negotiated up. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];
export const isSupportedProtocolVersion = (v: string): boolean => (PROTOCOL_VERSIONS as readonly string[]).includes(v);
/** The revision of the per-request envelope era. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

export const SERVER_INFO = { name: "crew", title: "Crew", version: API_VERSION };

/**
 * 2025 era. `logging` costs nothing (the SDK answers logging/setLevel, and keeps the level on the
 * one server of the request or connection, never another caller's) and lets clients set a level
 * without an error. Resources, prompts and completions: src/docs/notes/mcp-resources-and-prompts.md.
 */
const LEGACY = {
  capabilities: {
    tools: { listChanged: false },
    resources: { listChanged: false },
    prompts: { listChanged: false },
    completions: {},
    logging: {},
  },
  supportedProtocolVersions: [...PROTOCOL_VERSIONS],
};

/**
 * Every list depends on the credential (plan ∩ scopes), so no shared cache may keep it. A minute
 * is short enough for a plan change to show soon and long enough to spare a client a list per call.
 */
const LIST = { ttlMs: 60_000, cacheScope: "private" } as const;

/** 2026-07-28. Logging is deprecated there and not offered; changes arrive through subscriptions (subscriptions.ts). */
const MODERN = {
  capabilities: {
    tools: { listChanged: true },
    resources: { subscribe: true },
    prompts: {},
    completions: {},
    extensions: { [TASKS_EXTENSION]: {} },
  },
  cacheHints: {
    "server/discover": LIST,
    "tools/list": LIST,
    "prompts/list": LIST,
    "resources/list": LIST,
    "resources/templates/list": LIST,
    // Records change under the client at any time (a regeneration, another user's write).
    "resources/read": { ttlMs: 0, cacheScope: "private" },
  },
} as const;

/** When the caller cannot be resolved at initialize (stdio: a key revoked since start); every later request says why. */
const INSTRUCTIONS =
  "Crew holds what a crew of 17 operations agents found: start with crew_briefing (what to focus on today) or crew_standup, " +
  "check freshness with crew_agent_status, and use the write tools (actions, contacts, handoffs, insights) to hand work back to the crew.";

const TASK_PARAMS = v.looseObject({ taskId: v.string() });

/** Principal errors (on stdio: revoked key, spent quota) as the JSON-RPC error every list and read answers. */
async function principalOf(caller: McpCaller): Promise<Principal> {
  try {
    return await caller.principal();
  } catch (error) {
    if (error instanceof ApiError) throw protocolError(INVALID_REQUEST, `${error.code}: ${error.message}`);
    throw error;
  }
}

async function instructionsOf(caller: McpCaller): Promise<string> {
  try {
    return instructionsFor(await (caller.peek ? caller.peek() : caller.principal()));
  } catch (error) {
    if (error instanceof ApiError) return INSTRUCTIONS;
    throw error;
  }
}

/** The same answer in both eras for an unknown tool (Invalid params). */
const unknownTool = (name: string) => protocolError(INVALID_PARAMS, `Unknown tool: ${name}. Call tools/list for the tools available.`);

/**
 * MCP 2025-11-25 and before answer an unknown resource with -32002 (server/resources, "Error
 * Handling"); the SDK v2 encodes that code as -32602 in both eras, which is 2026-07-28's rule. A
 * 2025-era server therefore sends the response to request `id` with -32002 again, through the
 * transport it is connected to (one request's, or one stdio connection's), whose send is wrapped
 * the first time it is needed.
 */
const notFoundIds = new WeakMap<object, Set<RequestId>>();
function answerAsResourceNotFound(server: Server, id: RequestId): void {
  const transport = server.transport;
  if (!transport) return;
  let ids = notFoundIds.get(transport);
  if (!ids) {
    const pending = new Set<RequestId>();
    ids = pending;
    notFoundIds.set(transport, pending);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const { id: answered, error } = message as { id?: RequestId; error?: { code: number } };
      if (!error || answered === undefined || !pending.delete(answered)) return send(message, options);
      return send({ ...message, error: { ...error, code: RESOURCE_NOT_FOUND } } as typeof message, options);
    };
  }
  ids.add(id);
}

export interface ServerFactoryOptions {
  /** Who one serving unit acts for (HTTP: the gate's caller in `authInfo`; stdio: the key's user). */
  callerOf(context: McpRequestContext): McpCaller;
  /** Stateless HTTP's 2025-era cancellations across requests; absent on stdio, where the SDK cancels within the connection. */
  cancellations?: Cancellations;
}

type HandlerContext = { mcpReq: { id: RequestId; signal: AbortSignal } };

export function mcpServerFactory(deps: AppDeps, catalog: Map<string, McpTool>, options: ServerFactoryOptions): McpServerFactory {
  const serverInfo = { ...SERVER_INFO, icons: icons(deps.config.baseUrl, "crew") };
  const resources = buildResourceCatalog(operations);
  const apps = mcpApps(catalog);
  const { db, clock, config, log, events, outbound } = deps;
  const tasks = new TaskStore({ db, clock, log });

  return async (context) => {
    const caller = options.callerOf(context);
    const modern = context.era === "modern";
    const instructions = await instructionsOf(caller);
    const server = new Server(serverInfo, { ...(modern ? MODERN : LEGACY), instructions });
    const ctxOf = async () => ({
      db,
      clock,
      config,
      log,
      events,
      outbound,
      principal: await principalOf(caller),
      requestId: caller.requestId(),
    });
    const protocolVersion = () =>
      modern ? MODERN_PROTOCOL_VERSION : (caller.protocolVersion ?? server.getNegotiatedProtocolVersion() ?? "2025-03-26");
    // MCP Apps (apps/documents.ts): a 2026-07-28 request always carries its client's capabilities;
    // a stateless 2025-era request carries none after initialize, and is offered them.
    const withApps = () => appsOffered(modern ? (server.getClientCapabilities() ?? {}) : server.getClientCapabilities());

    // A 2025-era request on stateless HTTP runs where a cancellation sent on another request can find it.
    const cancels = !modern && options.cancellations && caller.cancelKey !== undefined ? options.cancellations : undefined;
    const cancelKey = caller.cancelKey ?? "";
    const cancellable = <Q, C extends HandlerContext, R>(handler: (request: Q, sctx: C, signal: AbortSignal) => Promise<R>) =>
      cancels
        ? (request: Q, sctx: C) => cancels.run(cancelKey, sctx.mcpReq.id, (signal) => handler(request, sctx, signal))
        : (request: Q, sctx: C) => handler(request, sctx, sctx.mcpReq.signal);
    if (cancels) {
      server.setNotificationHandler("notifications/cancelled", (notification) => {
        const target = notification.params?.requestId;
        if (target !== undefined) cancels.cancel(cancelKey, target);
      });
    }

    server.setRequestHandler(
      "tools/list",
      cancellable(async () => {
        const principal = await principalOf(caller);
        const visible = visibleTools(catalog, principal, caller.view);
        const tools = withApps() ? withAppMeta(visible) : visible;
        // An empty list cannot say why by itself; `_meta` carries the reason for clients and people who look.
        return tools.length > 0 ? { tools } : { tools, _meta: { "crew/explanation": emptyToolsExplanation(principal) } };
      }),
    );

    server.setRequestHandler(
      "tools/call",
      cancellable(async (request, sctx, signal): Promise<CallToolResult> => {
        const tool = catalog.get(request.params.name);
        if (!tool) throw unknownTool(request.params.name);
        const requestId = caller.requestId();
        // Outside the endpoint's view: refused before anything else of the call (confirmations, tasks).
        const outside = viewRefusal(tool, caller.view, requestId);
        if (outside) return outside;
        let principal: Principal;
        try {
          principal = await caller.principal();
        } catch (error) {
          // On stdio a revoked key or a spent quota shows up here, per call.
          if (error instanceof ApiError) return toolError(error.code, error.message, { request_id: requestId });
          throw error;
        }
        // Cancelled while waiting for its caller: not started, so not performed.
        if (signal.aborted)
          return toolError("cancelled", "The client cancelled this request; nothing was done.", { request_id: requestId });
        const ctx = { db, clock, config, log, events, outbound, principal, requestId };
        const features = resultFeatures(protocolVersion());
        if (modern) {
          const args = request.params.arguments ?? {};
          const asked = await confirmationFor(tool, args, {
            ctx,
            elicitation: server.getClientCapabilities()?.elicitation,
            inputResponses: (sctx as { mcpReq: { inputResponses?: Record<string, unknown> } }).mcpReq.inputResponses,
          });
          if (asked) return asked as CallToolResult;
          if (TASK_TOOLS.has(tool.mcp.name) && tasksDeclared(server.getClientCapabilities())) {
            return (await tasks.start(taskOwner(principal.credential), principal.orgId, async (taskSignal) => {
              const result = await callTool(tool, args, { ...ctx, signal: taskSignal }, features);
              const run = result.structuredContent as { status?: string; summary?: string } | undefined;
              // A run that ended in error fails the task with the run's own words.
              if (run?.status === "error") throw new Error(run.summary);
              return result;
            })) as unknown as CallToolResult;
          }
        }
        return callTool(tool, request.params.arguments, ctx, features, request.params._meta);
      }),
    );

    if (modern) {
      for (const method of ["tasks/get", "tasks/cancel"] as const) {
        server.setRequestHandler(method, { params: TASK_PARAMS }, async (params) => {
          if (!tasksDeclared(server.getClientCapabilities())) throw missingCapability();
          const owner = taskOwner((await principalOf(caller)).credential);
          return (await (method === "tasks/get" ? tasks.get(owner, params.taskId) : tasks.cancel(owner, params.taskId))) as never;
        });
      }
    }

    server.setRequestHandler(
      "resources/list",
      cancellable(async () => {
        const principal = await principalOf(caller);
        return { resources: [...listResources(resources, principal), ...(withApps() ? apps.list(principal) : [])] };
      }),
    );
    server.setRequestHandler(
      "resources/templates/list",
      cancellable(async () => ({ resourceTemplates: listResourceTemplates(resources, await principalOf(caller)) })),
    );
    server.setRequestHandler(
      "resources/read",
      cancellable(async (request, sctx) => {
        const ctx = await ctxOf();
        const app = withApps() ? apps.read(request.params.uri, ctx.principal) : null;
        try {
          return app ?? (await readResource(resources, request.params.uri, ctx));
        } catch (error) {
          if (!modern && (error as { code?: unknown }).code === RESOURCE_NOT_FOUND) answerAsResourceNotFound(server, sctx.mcpReq.id);
          throw error;
        }
      }),
    );
    server.setRequestHandler(
      "prompts/list",
      cancellable(async () => ({ prompts: listPrompts(PROMPTS, await principalOf(caller)) })),
    );
    server.setRequestHandler(
      "prompts/get",
      cancellable(async (request) => getPrompt(PROMPTS, request.params.name, request.params.arguments ?? {}, await ctxOf())),
    );
    server.setRequestHandler(
      "completion/complete",
      cancellable(async (request) => complete(PROMPTS, resources, request.params.ref, request.params.argument, await principalOf(caller))),
    );
    return server;
  };
}
