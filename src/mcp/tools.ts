/**
 * The MCP projection of the operation registry: one tool per operation with an `mcp` part. Tool
 * definitions (JSON Schema from the valibot schemas) are built once; a call runs through
 * operations/invoke.ts (plan ∩ scope, validation, the operation's own handler) and this file
 * translates its errors. Everything a caller can get wrong
 * comes back as a tool error (`isError`), which a model can read and act on.
 */

import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { denial } from "../auth/access.ts";
import type { Principal } from "../domain.ts";
import { ApiError, type FieldIssue } from "../errors.ts";
import { inSpan, tracingEnabled } from "../lib/tracing.ts";
import { InvalidInput, invoke } from "../operations/invoke.ts";
import type { AnySchema, McpProjection, Operation, OperationContext } from "../operations/registry.ts";
import { icons } from "./icons.ts";
import { FULL_VIEW, inView, outsideView, type ToolView, toolsetOf } from "./toolsets.ts";

export interface McpTool {
  op: Operation;
  mcp: McpProjection;
  definition: Tool;
}

type JsonObjectSchema = Tool["inputSchema"];

/** Draft 2020-12 JSON Schema; transforms and checks that JSON Schema cannot express are left out. */
function jsonSchema(schema: AnySchema, typeMode: "input" | "output"): JsonObjectSchema {
  const { $schema: _drop, ...out } = toJsonSchema(schema, { target: "draft-2020-12", errorMode: "ignore", typeMode }) as Record<
    string,
    unknown
  >;
  // MCP wants an object schema at the top; a union of objects is still one (e.g. crew_add_action's output).
  return (out.type === "object" ? out : { type: "object", ...out }) as JsonObjectSchema;
}

/** Tools carry an icon served by Crew (src/docs/notes/mcp-resources-and-prompts.md) when the base URL is known: read or write by tier. */
export function buildToolCatalog(operations: readonly Operation[], baseUrl?: string): Map<string, McpTool> {
  const tools = new Map<string, McpTool>();
  for (const op of operations) {
    const mcp = op.mcp;
    if (!mcp) continue;
    toolsetOf(mcp.name); // every tool belongs to a toolset (toolsets.ts), checked when the catalog is built
    tools.set(mcp.name, {
      op,
      mcp,
      definition: {
        name: mcp.name,
        title: mcp.title,
        description: op.description,
        inputSchema: jsonSchema(mcp.input ?? op.input, "input"),
        outputSchema: jsonSchema(op.output, "output"),
        annotations: { title: mcp.title, ...mcp.annotations },
        ...(baseUrl && { icons: icons(baseUrl, mcp.access.tier === "read" ? "read" : "write") }),
      },
    });
  }
  return tools;
}

/** The tools this principal may call in this view: the rest are left out of tools/list (src/docs/notes/mcp-clients.md). */
export function visibleTools(catalog: Map<string, McpTool>, principal: Principal, view: ToolView = FULL_VIEW): Tool[] {
  const out: Tool[] = [];
  for (const tool of catalog.values()) if (inView(tool, view) && denial(principal, tool.mcp.access) === null) out.push(tool.definition);
  return out;
}

/** The tool error of a call to a tool that the endpoint's view leaves out (src/mcp/toolsets.ts), or null. */
export function viewRefusal(tool: McpTool, view: ToolView, requestId: string): CallToolResult | null {
  const why = view === FULL_VIEW ? null : outsideView(tool, view);
  return why ? toolError("tool_not_offered", why, { request_id: requestId }) : null;
}

/** A tool error: the message for people and models, then the same as JSON for programs. */
export function toolError(
  code: string,
  message: string,
  extra: { required_scope?: string; issues?: FieldIssue[]; request_id?: string } = {},
) {
  return {
    isError: true,
    content: [
      { type: "text", text: message },
      { type: "text", text: JSON.stringify({ error: code, message, ...extra }) },
    ],
  } satisfies CallToolResult;
}

function fromApiError(error: ApiError, requestId: string): CallToolResult {
  const { required_scope, issues } = error.extra;
  return toolError(error.code, error.message, {
    request_id: requestId,
    ...(required_scope && { required_scope }),
    ...(issues && { issues }),
  });
}

/**
 * `null` for an optional argument means "absent" (src/docs/notes/mcp-resources-and-prompts.md): clients using strict function calling
 * send every property, null when unset. Only fields that are optional and do not take null
 * themselves are dropped; REST keeps refusing null (this is the MCP projection only).
 */
export function dropNullOptionals(schema: AnySchema, args: Record<string, unknown>): Record<string, unknown> {
  const entries = (schema as { entries?: Record<string, AnySchema> }).entries;
  if (!entries) return args;
  let out = args;
  for (const [key, value] of Object.entries(args)) {
    const entry = entries[key];
    if (value !== null || !entry || !OPTIONAL_TYPES.has(entry.type) || v.safeParse(entry, null).success) continue;
    if (out === args) out = { ...args };
    delete out[key];
  }
  return out;
}
const OPTIONAL_TYPES = new Set(["optional", "exact_optional", "undefinedable"]);

export type ToolContext = Omit<OperationContext, "via">;

/** What a result may carry in the protocol version of the request (MCP 2025-03-26 defines no `resource_link`). */
export interface ResultFeatures {
  resourceLinks: boolean;
}

export const resultFeatures = (protocolVersion: string): ResultFeatures => ({ resourceLinks: protocolVersion !== "2025-03-26" });

/**
 * The JSON, then the records it names: as text for every client (LangChain turns a `resource_link`
 * into a file block chat models refuse, and users there drop links with `outputHandling`), then as
 * `resource_link` blocks where the protocol version defines them.
 */
const linkLabel = (l: { uri: string; name: string }) => (l.uri.endsWith(`/${l.name}`) ? l.uri : `${l.uri} (${l.name})`);

/**
 * The Crew records a result's records cite as evidence, as links: an `evidence` item of a kind
 * that is an MCP resource (an action, `crew://actions/{id}`). The other kinds' records have no
 * resource to read; their evidence keeps its `url` to Crew's page in the structured content.
 */
const EVIDENCE_RESOURCES: Record<string, (ref: string) => string> = { action: (ref) => `crew://actions/${ref}` };

function evidenceLinks(value: unknown, found: Map<string, { uri: string; name: string }>, depth = 0): void {
  if (depth > 4 || typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) evidenceLinks(item, found, depth + 1);
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key !== "evidence" || !Array.isArray(inner)) {
      evidenceLinks(inner, found, depth + 1);
      continue;
    }
    for (const e of inner as { kind?: unknown; ref?: unknown }[]) {
      const uriOf = typeof e?.kind === "string" && typeof e.ref === "string" ? EVIDENCE_RESOURCES[e.kind] : undefined;
      if (uriOf && typeof e.ref === "string") found.set(uriOf(e.ref), { uri: uriOf(e.ref), name: e.ref });
    }
  }
}

function toolResult(result: Record<string, unknown>, own: { uri: string; name: string }[], features: ResultFeatures): CallToolResult {
  const cited = new Map<string, { uri: string; name: string }>();
  evidenceLinks(result, cited);
  for (const link of own) cited.delete(link.uri);
  const links = [...own, ...cited.values()];
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(result) }];
  if (links.length > 0) {
    content.push({ type: "text", text: `Records: ${links.map(linkLabel).join(", ")}. Read one with resources/read.` });
    if (features.resourceLinks) for (const link of links) content.push({ type: "resource_link", ...link, mimeType: "application/json" });
  }
  return { content, structuredContent: result };
}

export async function callTool(
  tool: McpTool,
  args: Record<string, unknown> | undefined,
  ctx: ToolContext,
  features: ResultFeatures = { resourceLinks: true },
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  if (!tracingEnabled()) return callToolUntraced(tool, args, ctx, features);
  // A W3C `traceparent` in the request's `_meta` continues the caller's trace (src/docs/notes/tracing.md).
  const carried = (name: string) => (typeof meta?.[name] === "string" ? (meta[name] as string) : undefined);
  return inSpan(`tool ${tool.mcp.name}`, { "crew.tool": tool.mcp.name }, () => callToolUntraced(tool, args, ctx, features), {
    ...(carried("traceparent") ? { parent: carried } : {}),
  });
}

async function callToolUntraced(
  tool: McpTool,
  args: Record<string, unknown> | undefined,
  ctx: ToolContext,
  features: ResultFeatures,
): Promise<CallToolResult> {
  const { op, mcp } = tool;
  try {
    const result = (await invoke(
      op,
      { ...ctx, via: "mcp" },
      { access: mcp.access, input: () => dropNullOptionals(mcp.input ?? op.input, args ?? {}), inputName: "arguments" },
    )) as Record<string, unknown>;
    return toolResult(result, mcp.links?.(result) ?? [], features);
  } catch (error) {
    if (error instanceof InvalidInput) {
      const list = error.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
      return toolError("invalid_request", `Invalid arguments for ${mcp.name} — ${list}`, {
        issues: error.issues,
        request_id: ctx.requestId,
      });
    }
    if (error instanceof ApiError) return fromApiError(error, ctx.requestId);
    ctx.log.error("tool failed", {
      request_id: ctx.requestId,
      tool: mcp.name,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return toolError("internal_error", `Something went wrong on our side; quote request id ${ctx.requestId} if you report it.`, {
      request_id: ctx.requestId,
    });
  }
}
