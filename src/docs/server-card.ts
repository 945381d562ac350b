/**
 * Discovery for registries (src/docs/notes/discovery.md#server-card): the MCP Server Card at
 * `{base}/mcp/server-card` (linked from /.well-known/mcp.json) and the `server.json` of the MCP
 * Registry's schema 2025-12-11, which `crew mcp server-json` prints for a private registry. Both
 * name this installation by its host, so two Crew servers never share a registry name.
 */
import { API_VERSION } from "../http/middleware.ts";

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/** Where the card is served (and linked from /.well-known/mcp.json). */
export const SERVER_CARD_PATH = "/mcp/server-card";
export const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

const TITLE = "Crew";
/** At most 100 characters (the registry schema's limit). */
const DESCRIPTION = "Operations assistant: briefings, standups, the action queue and a crew of 17 agents.";

/**
 * The registry name: reverse-DNS namespace, one "/", then this server's host (a port joined with
 * "-", since the name allows only letters, digits, ".", "_" and "-" after the slash).
 */
export function registryName(baseUrl: string): string {
  return `io.crew/${new URL(baseUrl).host.replace(/:/g, "-")}`;
}

/** The endpoints a client may connect to: the server, and its read-only view (src/docs/notes/mcp-clients.md). */
function remotes(baseUrl: string) {
  const authorization = {
    name: "Authorization",
    description: "Bearer and a Crew API key (crew_…), or leave it out and sign in with OAuth.",
    isRequired: false,
    isSecret: true,
  };
  return [
    { type: "streamable-http", url: `${baseUrl}/mcp`, headers: [authorization] },
    { type: "streamable-http", url: `${baseUrl}/mcp/readonly`, headers: [authorization] },
  ];
}

export function mcpServerCard(baseUrl: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: registryName(baseUrl),
    version: API_VERSION,
    title: TITLE,
    description: DESCRIPTION,
    websiteUrl: `${baseUrl}/docs`,
    remotes: remotes(baseUrl),
  };
}

export function registryServerJson(baseUrl: string) {
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: registryName(baseUrl),
    title: TITLE,
    description: DESCRIPTION,
    version: API_VERSION,
    websiteUrl: `${baseUrl}/docs`,
    remotes: remotes(baseUrl),
  };
}
