/**
 * MCP peers for `npm run bench` (scripts/bench-mcp.ts), each with one tool returning the same JSON
 * Crew's crew_agent_status returns (`payload`), no auth, no database: what the fastest TypeScript
 * MCP servers do per request at the least. Served in the bench's server process.
 *   - sdk: the MCP SDK's documented stateless pattern (a new Server and transport per request).
 *   - tmcp: tmcp + @tmcp/transport-http, one server for the process (its documented setup).
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ValibotJsonSchemaAdapter } from "@tmcp/adapter-valibot";
import { HttpTransport } from "@tmcp/transport-http";
import { McpServer } from "tmcp";

export type Handler = (req: Request) => Promise<Response>;

/** The SDK's documented stateless server (new Server + transport per request, JSON responses). */
export function sdkPeer(payload: () => Record<string, unknown>): Handler {
  const validator = new AjvJsonSchemaValidator();
  const tool = { name: "agent_status", inputSchema: { type: "object" as const } };
  return async (req) => {
    const server = new Server({ name: "sdk-peer", version: "1.0.0" }, { capabilities: { tools: {} }, jsonSchemaValidator: validator });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
    server.setRequestHandler(CallToolRequestSchema, async () => {
      const data = payload();
      return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(req);
  };
}

/** tmcp, one server and one transport for the process. */
export function tmcpPeer(payload: () => Record<string, unknown>, path: string): Handler {
  const server = new McpServer(
    { name: "tmcp-peer", version: "1.0.0", description: "bench peer" },
    { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: { listChanged: false } } },
  );
  server.tool({ name: "agent_status", description: "Agent status" }, async () => {
    const data = payload();
    // The same result shape as Crew's (text + structuredContent); tmcp types structuredContent by an outputSchema.
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data } as never;
  });
  const transport = new HttpTransport(server, { path });
  return async (req) => (await transport.respond(req)) ?? new Response(null, { status: 404 });
}
