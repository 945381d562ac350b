/**
 * /.well-known/mcp.json (the MCP server card), /llms.txt and /llms-full.txt: generated from the
 * same registry as the tools and routes, so they never drift from the code.
 */
import { API_VERSION } from "../http/middleware.ts";
import type { Operation } from "../operations/registry.ts";
import { bearerAccessNote, oauthScopesSatisfying } from "./access-notes.ts";
import { documentedEndpoints } from "./endpoints.ts";
import { ERROR_CODES } from "./error-codes.ts";
import { jsonSchemaOf } from "./json-schema.ts";
import type { DocsSettings } from "./openapi.ts";
import { overview } from "./overview.ts";
import { SERVER_CARD_PATH } from "./server-card.ts";

/** The protocol versions the MCP endpoint speaks (src/docs/notes/mcp-clients.md). */
export const MCP_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];

const tools = (ops: Operation[]) => ops.flatMap((op) => (op.mcp ? [{ op, mcp: op.mcp }] : []));
const resources = (ops: Operation[]) => ops.flatMap((op) => (op.resource ? [{ op, resource: op.resource }] : []));
/** Fixed URIs are resources; URIs with `{variables}` are resource templates (RFC 6570). */
const isTemplate = (uri: string) => uri.includes("{");

export function serverCard(settings: DocsSettings, ops: Operation[]) {
  const { baseUrl } = settings;
  return {
    name: "crew",
    title: "Crew",
    version: API_VERSION,
    description:
      "An organization's operations assistant: agent health, standups, daily briefings, suggestions, the company profile, and the action queue, contacts, handoffs and insight feed of a crew of 17 AI agents.",
    endpoint: `${baseUrl}/mcp`,
    transport: "streamable-http",
    protocolVersions: MCP_PROTOCOL_VERSIONS,
    auth: {
      type: "oauth2",
      protectedResourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
      authorizationServerMetadata: `${baseUrl}/.well-known/oauth-authorization-server`,
      scopes: ["crew:read", "crew:write", "crew:admin"],
      bearerApiKeys: {
        header: "Authorization: Bearer crew_…",
        scopes: ["read", "briefing", "agents", "admin"],
        description: "API keys work in place of an OAuth token; create one in the dashboard or at POST /api/mcp/keys (signed in).",
      },
    },
    documentation: { reference: `${baseUrl}/docs`, openapi: `${baseUrl}/openapi.json`, llms: `${baseUrl}/llms.txt` },
    /** The registry-shaped card (src/docs/server-card.ts) and the narrower views of the endpoint. */
    serverCard: `${baseUrl}${SERVER_CARD_PATH}`,
    endpoints: { readOnly: `${baseUrl}/mcp/readonly`, toolset: `${baseUrl}/mcp/x/{toolset}` },
    tools: tools(ops).map(({ op, mcp }) => ({
      name: mcp.name,
      title: mcp.title,
      description: op.description,
      scope: mcp.access.oauthScope,
      keyScopes: mcp.access.keyScopes,
      annotations: mcp.annotations,
    })),
    resources: resources(ops).map(({ op, resource }) => ({
      [isTemplate(resource.uri) ? "uriTemplate" : "uri"]: resource.uri,
      name: resource.name,
      title: resource.title,
      description: op.description,
      mimeType: "application/json",
      scope: resource.access.oauthScope,
      keyScopes: resource.access.keyScopes,
    })),
  };
}

function resourceLines(ops: Operation[]): string[] {
  return resources(ops).map(
    ({ op, resource }) =>
      `- \`${resource.uri}\` (${resource.title}${isTemplate(resource.uri) ? ", template" : ""}): ${op.description} JSON, the same as ${op.rest ? `\`${op.rest.method} ${op.rest.path}\`` : "the tool"}. Needs: ${bearerAccessNote(resource.access)}`,
  );
}

function toolLines(ops: Operation[], full: boolean): string[] {
  return tools(ops).flatMap(({ op, mcp }) => {
    const head = `- \`${mcp.name}\` (${mcp.title}): ${op.description} Needs: ${bearerAccessNote(mcp.access)}`;
    if (!full) return [head];
    return [
      `### ${mcp.name}`,
      `${mcp.title}. ${op.description}`,
      `Needs: ${bearerAccessNote(mcp.access)} OAuth scopes that pass: ${oauthScopesSatisfying(mcp.access.oauthScope).join(", ")}. Annotations: ${JSON.stringify(mcp.annotations)}.`,
      `Input schema (arguments):\n\`\`\`json\n${JSON.stringify(jsonSchemaOf(mcp.input ?? op.input, "input"))}\n\`\`\``,
      `Output schema (structuredContent):\n\`\`\`json\n${JSON.stringify(jsonSchemaOf(op.output, "output"))}\n\`\`\``,
    ];
  });
}

function endpointLines(ops: Operation[], full: boolean): string[] {
  return documentedEndpoints(ops).flatMap((e) => {
    const head = `- \`${e.method} ${e.path}\`: ${e.summary}.${e.auth === "session" ? " (signed-in browser session)" : e.auth === "none" ? " (public)" : e.access ? ` Needs: ${bearerAccessNote(e.access)}` : ""}`;
    if (!full) return [head];
    const parts = [`### ${e.method} ${e.path}`, `${e.summary}. ${e.description}`, head.slice(2)];
    if (e.pathParams) parts.push(`Path parameters:\n\`\`\`json\n${JSON.stringify(e.pathParams)}\n\`\`\``);
    if (e.query && Object.keys(e.query.properties ?? {}).length > 0) {
      parts.push(`Query parameters:\n\`\`\`json\n${JSON.stringify(e.query)}\n\`\`\``);
    }
    if (e.body) parts.push(`Request body (application/json):\n\`\`\`json\n${JSON.stringify(e.body)}\n\`\`\``);
    parts.push(`Response ${e.ok.status}:\n\`\`\`json\n${JSON.stringify(e.ok.schema)}\n\`\`\``);
    for (const alt of e.alternatives ?? [])
      parts.push(`Response ${alt.status} (${alt.description}):\n\`\`\`json\n${JSON.stringify(alt.schema)}\n\`\`\``);
    parts.push(`Errors: ${e.errors.join(", ")} (error envelope).`);
    return parts;
  });
}

/** llms.txt (llmstxt.org): a title, a summary, then what to read and call. `full` inlines every schema. */
export function llmsText(settings: DocsSettings, ops: Operation[], full: boolean): string {
  const { baseUrl } = settings;
  const sections = [
    "# Crew",
    "> Self-hosted operations assistant: a crew of 17 AI agents runs periodically and stores its output; Crew serves that stored intelligence, and a few writes, over MCP (for AI tools) and REST (for scripts).",
    `Use MCP at \`${baseUrl}/mcp\` (Streamable HTTP) when you are an AI tool; use REST under \`${baseUrl}/api/\` from scripts. Both take \`Authorization: Bearer <token>\`: an API key (\`crew_…\`) or an OAuth 2.1 access token (authorization code + PKCE; metadata at \`${baseUrl}/.well-known/oauth-authorization-server\`).`,
    "## Docs",
    [
      `- [API reference](${baseUrl}/docs): every REST endpoint, human-readable`,
      `- [OpenAPI 3.1](${baseUrl}/openapi.json): the machine-readable contract`,
      `- [Error codes](${baseUrl}/docs/errors): every \`error\` code and its fix`,
      `- [MCP server card](${baseUrl}/.well-known/mcp.json): endpoint, auth, tools`,
      full
        ? `- [Short version](${baseUrl}/llms.txt)`
        : `- [Full version](${baseUrl}/llms-full.txt): every endpoint and tool with its JSON Schemas`,
    ].join("\n"),
    "## Essentials",
    overview(settings, documentedEndpoints(ops)).replace(/^### /gm, "#### "),
    "## MCP tools",
    // The short version is one list; the full one a section per tool and per endpoint.
    ...(full ? toolLines(ops, true) : [toolLines(ops, false).join("\n")]),
    "## MCP resources",
    `Read with resources/read (templates: resources/templates/list; fixed values answer completion/complete). Prompts: plan_my_day, review_queue, weekly_review (read tier) and hand_off (write tier).\n${resourceLines(ops).join("\n")}`,
    "## REST endpoints",
    ...(full ? endpointLines(ops, true) : [endpointLines(ops, false).join("\n")]),
    "## Error codes",
    ERROR_CODES.map((e) => `- \`${e.code}\` (${e.status}): ${e.when} Fix: ${e.fix}`).join("\n"),
  ];
  return `${sections.join("\n\n")}\n`;
}
