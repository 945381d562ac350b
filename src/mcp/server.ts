/**
 * The MCP server behind the HTTP endpoint (one for all requests, see shared-transport.ts) and
 * `crew mcp` over stdio (one per process). Who the caller is comes from a `McpSession`, so each
 * transport decides how the principal is resolved and counted against the quota.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { AppDeps } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { API_VERSION } from "../http/middleware.ts";
import { operations } from "../operations/index.ts";
import { appsOffered, mcpApps, withAppMeta } from "./apps/documents.ts";
import { registerCompletions } from "./completions.ts";
import { icons } from "./icons.ts";
import { emptyToolsExplanation, instructionsFor } from "./instructions.ts";
import { PROMPTS, registerPrompts } from "./prompts.ts";
import { buildResourceCatalog, principalOf, registerResources } from "./resources.ts";
import type { SessionOf } from "./session.ts";
import { callTool, type McpTool, resultFeatures, toolError, viewRefusal, visibleTools } from "./tools.ts";
import { FULL_VIEW } from "./toolsets.ts";

/** src/docs/notes/mcp-clients.md. The SDK also speaks 2024 versions; Crew does not, so they are refused or negotiated up. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];
export const isSupportedProtocolVersion = (v: string): boolean => (PROTOCOL_VERSIONS as readonly string[]).includes(v);

export const SERVER_INFO = { name: "crew", title: "Crew", version: API_VERSION };

/**
 * `logging` costs nothing (the SDK answers logging/setLevel) and lets clients set a level without an
 * error. Resources, prompts and completions: src/docs/notes/mcp-resources-and-prompts.md (src/mcp/resources.ts, prompts.ts, completions.ts).
 */
const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
  logging: {},
};

/** When the caller cannot be resolved at initialize (stdio: a key revoked since start); every later request says why. */
const INSTRUCTIONS =
  "Crew holds what a crew of 17 operations agents found: start with crew_briefing (what to focus on today) or crew_standup, " +
  "check freshness with crew_agent_status, and use the write tools (actions, contacts, handoffs, insights) to hand work back to the crew.";

const resourceCatalog = buildResourceCatalog(operations);

/**
 * Building a Server otherwise makes a fresh Ajv instance, most of the cost of a stateless request
 * (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions): one validator serves every server of the process.
 */
const sharedValidator = new AjvJsonSchemaValidator();

export type { McpSession, SessionOf } from "./session.ts";

/**
 * `sessionOf` finds the caller of one request from the handler's `extra` (its JSON-RPC id): stdio
 * has one caller per process, HTTP one per request through a single shared server
 * (src/mcp/shared-transport.ts), so nothing here may hold a caller between requests.
 */
export function buildMcpServer(deps: AppDeps, catalog: Map<string, McpTool>, sessionOf: SessionOf): Server {
  const serverInfo = { ...SERVER_INFO, icons: icons(deps.config.baseUrl, "crew") };
  const server = new Server(serverInfo, {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: sharedValidator,
  });

  // Same answer as the SDK's own handler, but negotiating only the versions Crew supports.
  server.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
    const session = sessionOf(extra);
    const asked = request.params.protocolVersion;
    session.initialized?.(request.params.capabilities);
    let instructions = INSTRUCTIONS;
    try {
      instructions = instructionsFor(await (session.peek ? session.peek() : session.principal()));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
    const protocolVersion = isSupportedProtocolVersion(asked) ? asked : LATEST_PROTOCOL_VERSION;
    session.negotiated?.(protocolVersion);
    return {
      protocolVersion,
      capabilities: CAPABILITIES,
      serverInfo,
      instructions,
    };
  });

  // The SDK keeps the level per session id, and a stateless request has none: every caller would
  // share one level. Crew sends no log messages, so a valid level is acknowledged and kept nowhere.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    if (!LoggingLevelSchema.safeParse(request.params.level).success)
      throw new McpError(ErrorCode.InvalidParams, `Unknown logging level: ${request.params.level}.`);
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const session = sessionOf(extra);
    const principal = await principalOf(session);
    const visible = visibleTools(catalog, principal, session.view?.());
    const tools = appsOffered(session.clientCapabilities?.()) ? withAppMeta(visible) : visible;
    // An empty list cannot say why by itself; `_meta` carries the reason for clients and people who look.
    return tools.length > 0 ? { tools } : { tools, _meta: { "crew/explanation": emptyToolsExplanation(principal) } };
  });

  const { db, clock, config, log, events, outbound } = deps;
  const context = () => ({ db, clock, config, log, events, outbound });
  // MCP Apps (src/mcp/apps/): only to clients that may have the extension.
  const apps = mcpApps(catalog);
  registerResources(server, resourceCatalog, sessionOf, context, (session) => (appsOffered(session.clientCapabilities?.()) ? apps : null));
  registerPrompts(server, PROMPTS, sessionOf, context);
  registerCompletions(server, PROMPTS, resourceCatalog, sessionOf);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const session = sessionOf(extra);
    const tool = catalog.get(request.params.name);
    if (!tool)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. Call tools/list for the tools available.`);
    const requestId = session.requestId();
    const outside = viewRefusal(tool, session.view?.() ?? FULL_VIEW, requestId);
    if (outside) return outside;
    let principal: Principal;
    try {
      principal = await session.principal();
    } catch (error) {
      // On stdio a revoked key or a spent quota shows up here, per call.
      if (error instanceof ApiError) return toolError(error.code, error.message, { request_id: requestId });
      throw error;
    }
    // Cancelled while waiting for its caller (shared-transport.ts): not started, so not performed.
    if (extra.signal.aborted)
      return toolError("cancelled", "The client cancelled this request; nothing was done.", { request_id: requestId });
    const ctx = { db, clock, config, log, events, outbound, principal, requestId };
    return callTool(tool, request.params.arguments, ctx, resultFeatures(session.protocolVersion()), request.params._meta);
  });

  return server;
}
