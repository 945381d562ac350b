/**
 * Tool descriptions are read by a model over MCP (src/docs/notes/mcp-clients.md): they speak of the tool's result and of
 * the credential's owner, not of HTTP status codes, sessions or headers. Read through the SDK's
 * client, descriptions of arguments and results included.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let client: Client;
beforeAll(async () => {
  s = await startServer();
  const { key } = await s.userWithKey("operator", ["admin"]);
  client = await connectHttp(s.url, key);
});
afterAll(async () => {
  await client?.close();
  await s?.close();
});

/** Every `description` in a JSON Schema, with its path. */
function descriptions(schema: unknown, path: string): [string, string][] {
  if (!schema || typeof schema !== "object") return [];
  const found: [string, string][] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description" && typeof value === "string") found.push([path, value]);
    else found.push(...descriptions(value, `${path}.${key}`));
  }
  return found;
}

/** HTTP status codes, web-session and header words: not what a model calling a tool sees. */
const HTTP_SPEAK =
  /\b(?:[45]\d\d)\b(?! ?(?:items?|characters?|actions?|days?|minutes?|hours?))|signed-in|\bHTTP\b(?! status of)|\bBearer\b|\bcookie\b|\bquery string\b/i;

describe("issue 11 item 20: tool descriptions for a model", () => {
  it("speak of results and the credential's owner, not of HTTP", async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const offending: string[] = [];
    for (const tool of tools) {
      const texts: [string, string][] = [
        [tool.name, tool.description ?? ""],
        ...descriptions(tool.inputSchema, `${tool.name}.input`),
        ...descriptions(tool.outputSchema, `${tool.name}.output`),
      ];
      for (const [where, text] of texts) if (HTTP_SPEAK.test(text)) offending.push(`${where}: ${text}`);
    }
    expect(offending).toEqual([]);
  });
});
