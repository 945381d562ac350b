/**
 * MCP 2026-07-28 on `/mcp`, beside the 2025 revisions (routes.ts sends each request to one era,
 * by the SDK's own classification: a request carrying the per-request `_meta` envelope is
 * modern). The SDK v2 entry (`createMcpHandler`) does the protocol work of this revision —
 * `server/discover`, the envelope, the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` checks
 * against the body, `UnsupportedProtocolVersion`, `ttlMs`/`cacheScope` — on a fresh low-level
 * server per request, whose handlers are the same functions the 2025 server calls (tools.ts,
 * resources.ts, prompts.ts, completions.ts). The caller arrives as `authInfo` from the gate.
 */
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  type McpServerFactory,
  Server,
  type ServerEventBus,
} from "@modelcontextprotocol/server";
import * as v from "valibot";
import { whatIsMissing } from "../agents/model-run.ts";
import type { AppDeps } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { operations } from "../operations/index.ts";
import { appsOffered, mcpApps, withAppMeta } from "./apps/documents.ts";
import { complete } from "./completions.ts";
import { confirmationFor } from "./confirmations.ts";
import { icons } from "./icons.ts";
import { emptyToolsExplanation, instructionsFor } from "./instructions.ts";
import { getPrompt, listPrompts, PROMPTS } from "./prompts.ts";
import { INVALID_PARAMS, protocolError } from "./protocol-error.ts";
import { buildResourceCatalog, listResources, listResourceTemplates, readResource } from "./resources.ts";
import { SERVER_INFO } from "./server.ts";
import { missingCapability, TASK_TOOLS, TASKS_EXTENSION, TaskStore, taskOwner, tasksDeclared } from "./tasks.ts";
import { callTool, type McpTool, resultFeatures, viewRefusal, visibleTools } from "./tools.ts";
import type { ToolView } from "./toolsets.ts";

const TASK_PARAMS = v.looseObject({ taskId: v.string() });

/** The revision this leg speaks. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** Logging is deprecated in 2026-07-28 and not offered to that era; changes arrive through subscriptions (subscriptions.ts). */
const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true },
  prompts: {},
  completions: {},
  extensions: { [TASKS_EXTENSION]: {} },
};

/**
 * Every list depends on the credential (plan ∩ scopes), so no shared cache may keep it. A minute
 * is short enough for a plan change to show soon and long enough to spare a client a list per call.
 */
const LIST = { ttlMs: 60_000, cacheScope: "private" } as const;
const CACHE_HINTS = {
  "server/discover": LIST,
  "tools/list": LIST,
  "prompts/list": LIST,
  "resources/list": LIST,
  "resources/templates/list": LIST,
  // Records change under the client at any time (a regeneration, another user's write).
  "resources/read": { ttlMs: 0, cacheScope: "private" },
} as const;

/** What the gate hands this leg for one request. */
export interface ModernCaller {
  principal: Principal;
  requestId: string;
  /** The tools the endpoint offers (src/mcp/toolsets.ts). */
  view: ToolView;
}

const callerOf = (authInfo: AuthInfo | undefined): ModernCaller => {
  const caller = authInfo?.extra?.crew as ModernCaller | undefined;
  if (!caller) throw new Error("MCP request without a caller: the gate runs first");
  return caller;
};

/** An `authInfo` carrying the gate's caller (the SDK passes it through untouched). */
export const modernAuthInfo = (caller: ModernCaller, token: string): AuthInfo => ({
  token,
  clientId: caller.principal.credential.id,
  scopes: [],
  extra: { crew: caller },
});

/**
 * The SDK entries over one factory: `requests` answers every exchange but `subscriptions/listen`;
 * `stream(bus)` makes the entry for one such stream, with the bus of its caller
 * (subscriptions.ts), so shutdown can end streams (the SDK's close ends an entry's streams
 * gracefully, with the empty listen result) without cutting short a call in flight.
 */
export function modernHandlers(
  deps: AppDeps,
  catalog: Map<string, McpTool>,
): { requests: McpHttpHandler; stream: (bus: ServerEventBus) => McpHttpHandler } {
  const factory = modernServerFactory(deps, catalog);
  const options = { legacy: "reject", responseMode: "auto", maxRequestBodySize: 256 * 1024 } as const;
  return { requests: createMcpHandler(factory, options), stream: (bus) => createMcpHandler(factory, { ...options, bus }) };
}

/**
 * The server of one 2026-07-28 request, built by the SDK entry per request (its cost per request is
 * measured in src/docs/notes/benchmark.md#building-the-server-per-request).
 */
export function modernServerFactory(deps: AppDeps, catalog: Map<string, McpTool>): McpServerFactory {
  const serverInfo = { ...SERVER_INFO, icons: icons(deps.config.baseUrl, "crew") };
  const resources = buildResourceCatalog(operations);
  const apps = mcpApps(catalog);
  const { db, clock, config, log, events, outbound } = deps;
  const tasks = new TaskStore({ db, clock, log });

  return ({ authInfo }) => {
    const { principal, requestId, view } = callerOf(authInfo);
    const ctx = { db, clock, config, log, events, outbound, principal, requestId };
    const server = new Server(serverInfo, {
      capabilities: CAPABILITIES,
      instructions: instructionsFor(principal),
      cacheHints: CACHE_HINTS,
    });
    // Every 2026-07-28 request carries its client's capabilities, so the MCP Apps (apps/documents.ts)
    // go only to clients that declare the extension.
    const withApps = () => appsOffered(server.getClientCapabilities() ?? {});
    server.setRequestHandler("tools/list", async () => {
      const visible = visibleTools(catalog, principal, view);
      const tools = withApps() ? withAppMeta(visible) : visible;
      // v1 and v2 type the same JSON differently; the values are the 2025 server's.
      return (tools.length > 0 ? { tools } : { tools, _meta: { "crew/explanation": emptyToolsExplanation(principal) } }) as never;
    });
    server.setRequestHandler("tools/call", async (request, sctx) => {
      const tool = catalog.get(request.params.name);
      if (!tool) throw unknownTool(request.params.name);
      // Outside the endpoint's view: refused before anything else of the call (confirmations, tasks).
      const outside = viewRefusal(tool, view, requestId);
      if (outside) return outside as never;
      const args = request.params.arguments ?? {};
      const asked = await confirmationFor(tool, args, {
        ctx,
        elicitation: server.getClientCapabilities()?.elicitation,
        inputResponses: sctx.mcpReq.inputResponses,
        missingFor: (agentId) => whatIsMissing(ctx, principal.orgId, agentId),
      });
      if (asked) return asked as never;
      if (TASK_TOOLS.has(tool.mcp.name) && tasksDeclared(server.getClientCapabilities())) {
        return (await tasks.start(taskOwner(principal.credential), principal.orgId, async (signal) => {
          const result = await callTool(tool, args, { ...ctx, signal }, resultFeatures(MODERN_PROTOCOL_VERSION));
          const run = result.structuredContent as { status?: string; summary?: string } | undefined;
          // A run that ended in error fails the task with the run's own words.
          if (run?.status === "error") throw new Error(run.summary);
          return result;
        })) as never;
      }
      return (await callTool(tool, request.params.arguments, ctx, resultFeatures(MODERN_PROTOCOL_VERSION), request.params._meta)) as never;
    });
    for (const method of ["tasks/get", "tasks/cancel"] as const) {
      server.setRequestHandler(method, { params: TASK_PARAMS }, async (params) => {
        if (!tasksDeclared(server.getClientCapabilities())) throw missingCapability();
        const owner = taskOwner(principal.credential);
        return (await (method === "tasks/get" ? tasks.get(owner, params.taskId) : tasks.cancel(owner, params.taskId))) as never;
      });
    }
    server.setRequestHandler("resources/list", async () => ({
      resources: [...listResources(resources, principal), ...(withApps() ? apps.list(principal) : [])],
    }));
    server.setRequestHandler("resources/templates/list", async () => ({
      resourceTemplates: listResourceTemplates(resources, principal),
    }));
    server.setRequestHandler("resources/read", async (request) => {
      const app = withApps() ? apps.read(request.params.uri, principal) : null;
      return (app ?? (await readResource(resources, request.params.uri, ctx))) as never;
    });
    server.setRequestHandler("prompts/list", async () => ({ prompts: listPrompts(PROMPTS, principal) }));
    server.setRequestHandler("prompts/get", async (request) =>
      getPrompt(PROMPTS, request.params.name, request.params.arguments ?? {}, ctx),
    );
    server.setRequestHandler("completion/complete", async (request) =>
      complete(PROMPTS, resources, request.params.ref, request.params.argument, principal),
    );
    return server;
  };
}

/** The same answer the 2025 server gives an unknown tool (Invalid params). */
const unknownTool = (name: string) => protocolError(INVALID_PARAMS, `Unknown tool: ${name}. Call tools/list for the tools available.`);
