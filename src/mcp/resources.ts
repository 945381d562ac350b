/**
 * MCP resources (src/docs/notes/mcp-resources-and-prompts.md): the `resource` projection of the operation registry. A fixed URI
 * (`crew://briefing`) is listed by resources/list, a template (`crew://actions/{id}`) by
 * resources/templates/list; reading one runs the operation's handler with the template's variables
 * as input, so the JSON equals the REST answer. Access is the projection's (read tier), checked the
 * way tools are: a resource the caller may not read is neither listed nor readable.
 */
import type { ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate } from "@modelcontextprotocol/server";
import { denial } from "../auth/access.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { InvalidInput, invoke } from "../operations/invoke.ts";
import type { Operation, OperationContext, ResourceProjection } from "../operations/registry.ts";
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, protocolError } from "./protocol-error.ts";

/**
 * MCP's code for an unknown resource in the 2025 revisions (server/resources "Error Handling"); the
 * 2026-07-28 leg sends it as -32602, Invalid params (the SDK v2 maps it), with the same message.
 */
export const RESOURCE_NOT_FOUND = -32002;
export const JSON_MIME = "application/json";

export interface McpResource {
  op: Operation;
  resource: ResourceProjection;
  /** Names of the template's variables, in order; empty for a fixed URI. */
  variables: string[];
  /** Matches a concrete URI and captures the variables (each one URI segment). */
  pattern: RegExp;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

export function buildResourceCatalog(operations: readonly Operation[]): McpResource[] {
  const out: McpResource[] = [];
  for (const op of operations) {
    const resource = op.resource;
    if (!resource) continue;
    const variables: string[] = [];
    // RFC 6570 level 1: `{name}` expands to one percent-encoded segment.
    const source = resource.uri
      .split(/(\{[a-z]+\})/i)
      .map((part) => {
        const name = /^\{([a-z]+)\}$/i.exec(part)?.[1];
        if (!name) return escapeRegExp(part);
        variables.push(name);
        return "([^/?#]+)";
      })
      .join("");
    out.push({ op, resource, variables, pattern: new RegExp(`^${source}$`) });
  }
  return out;
}

const readable = (catalog: McpResource[], principal: Principal) => catalog.filter((r) => denial(principal, r.resource.access) === null);

export function listResources(catalog: McpResource[], principal: Principal): Resource[] {
  return readable(catalog, principal)
    .filter((r) => r.variables.length === 0)
    .map(({ op, resource }) => ({
      uri: resource.uri,
      name: resource.name,
      title: resource.title,
      description: op.description,
      mimeType: JSON_MIME,
    }));
}

export function listResourceTemplates(catalog: McpResource[], principal: Principal): ResourceTemplate[] {
  return readable(catalog, principal)
    .filter((r) => r.variables.length > 0)
    .map(({ op, resource }) => ({
      uriTemplate: resource.uri,
      name: resource.name,
      title: resource.title,
      description: op.description,
      mimeType: JSON_MIME,
    }));
}

function match(catalog: McpResource[], uri: string): { entry: McpResource; input: Record<string, unknown> } | null {
  for (const entry of catalog) {
    const found = entry.pattern.exec(uri);
    if (!found) continue;
    const input: Record<string, unknown> = { ...entry.resource.input };
    try {
      entry.variables.forEach((name, i) => {
        input[name] = decodeURIComponent(found[i + 1] ?? "");
      });
    } catch {
      return null; // a malformed percent-encoding names nothing
    }
    return { entry, input };
  }
  return null;
}

/** Reads a resource as its operation answers; errors as JSON-RPC errors (resources have no isError). */
export async function readResource(catalog: McpResource[], uri: string, ctx: Omit<OperationContext, "via">) {
  const found = match(catalog, uri);
  if (!found)
    throw protocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}. Call resources/list and resources/templates/list.`, { uri });
  const { entry, input } = found;
  try {
    const result = await invoke(
      entry.op,
      { ...ctx, via: "mcp" },
      { access: entry.resource.access, input: () => input, inputName: "resource URI" },
    );
    return { contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(result) }] };
  } catch (error) {
    if (error instanceof InvalidInput) {
      const list = error.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
      throw protocolError(INVALID_PARAMS, `Invalid resource URI ${uri} — ${list}`, { uri, issues: error.issues });
    }
    if (error instanceof ApiError && error.status === 404) throw protocolError(RESOURCE_NOT_FOUND, error.message, { uri });
    if (error instanceof ApiError) throw protocolError(INVALID_REQUEST, `${error.code}: ${error.message}`, { uri, error: error.code });
    ctx.log.error("resource read failed", {
      request_id: ctx.requestId,
      uri,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    throw protocolError(INTERNAL_ERROR, `Something went wrong on our side; quote request id ${ctx.requestId} if you report it.`);
  }
}

/** Resources beside the registry's (the MCP Apps documents, src/mcp/apps/), as offered to one session. */
export interface ExtraResources {
  list(principal: Principal): Resource[];
  /** The resource, or null when the URI is not one of these. */
  read(uri: string, principal: Principal): ReadResourceResult | null;
}
