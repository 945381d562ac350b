/**
 * MCP test helpers: the SDK's own client over HTTP, raw JSON-RPC posts for transport-level
 * assertions, a loopback proxy that adds a Bearer key (the conformance suite cannot send one), and
 * the tool arguments/fixtures that make every tool answer.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { OAuthScope } from "../../src/domain.ts";
import { HOUR } from "../../src/lib/clock.ts";
import { newId, randomSecret, sha256Hex } from "../../src/lib/random.ts";
import type { Db } from "../../src/store/db.ts";
import { insertGrant } from "../../src/store/oauth/grants.ts";
import { insertTokenPair } from "../../src/store/oauth/tokens.ts";
import { standupInsertStatement } from "../../src/store/reports/reports.ts";

export const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw-test", version: "1.0.0" } },
} as const;

export async function connectHttp(base: string, key: string): Promise<Client> {
  const client = new Client({ name: "crew-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** A POST to /mcp as a Streamable HTTP client sends it; `headers` override or add. */
export async function mcpPost(base: string, body: unknown, headers: Record<string, string> = {}, path = "/mcp") {
  const res = await fetch(base + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, json, text };
}

const validator = new AjvJsonSchemaValidator();

/** Asserts what the SDK client already checks: structuredContent conforms to the tool's outputSchema. */
export function outputConforms(tool: Tool, result: CallToolResult): { valid: boolean; errorMessage?: string } {
  if (!tool.outputSchema) return { valid: false, errorMessage: "tool has no outputSchema" };
  const check = validator.getValidator(tool.outputSchema as Record<string, unknown>);
  const outcome = check(result.structuredContent);
  return outcome.valid ? { valid: true } : { valid: false, errorMessage: outcome.errorMessage };
}

/** The JSON block of a tool error (the second text block). */
export function errorJson(result: CallToolResult): any {
  const block = result.content.find((c, i) => i > 0 && c.type === "text");
  return block && block.type === "text" ? JSON.parse(block.text) : null;
}

export function firstText(result: CallToolResult): string {
  const block = result.content[0];
  return block?.type === "text" ? block.text : "";
}

/** A stored morning standup, so crew_standup has something to return. */
export async function seedStandup(db: Db, orgId: string, now: number): Promise<void> {
  await db.execute(
    standupInsertStatement({
      id: newId("std", now),
      orgId,
      mode: "morning",
      generatedAt: now,
      body: {
        briefing: "All quiet.",
        agentStatuses: [{ name: "Pulse", status: "green", headline: "DAU up" }],
        metrics: { dau: 10, wau: 50, mrr: 1000 },
        interventions: [],
      },
    }),
  );
}

/** An OAuth access token for `userId` with `scopes` and audience `{base}/mcp`, as the token endpoint would issue. */
export async function oauthAccessToken(
  db: Db,
  baseUrl: string,
  userId: string,
  scopes: OAuthScope[],
  now: number,
  resource = `${baseUrl}/mcp`,
) {
  const grantId = newId("grt", now);
  await insertGrant(db, { id: grantId, clientId: "test-client", userId, scopes, resource, redirectUri: "http://127.0.0.1/cb" }, now);
  const token = randomSecret(32);
  await insertTokenPair(
    db,
    {
      grantId,
      resource,
      access: { hash: sha256Hex(token), scopes, expiresAt: now + HOUR },
      refresh: { hash: sha256Hex(randomSecret(32)), scopes, expiresAt: now + 30 * 24 * HOUR },
    },
    now,
  );
  return { token, grantId };
}

/** Valid arguments for every tool (crew_update_action gets an id once an action exists). */
export function toolArguments(actionId: string, suggestionId = ""): Record<string, Record<string, unknown>> {
  return {
    crew_briefing: {},
    crew_standup: { mode: "morning" },
    crew_suggestions: {},
    crew_company_profile: {},
    crew_agent_status: {},
    crew_run_agent: { agent: "pulse" },
    crew_trigger_agent: { agent: "sales", payload: { lead: "Acme" } },
    crew_list_actions: { limit: 5 },
    crew_add_action: { title: "Call Acme back", priority: "high" },
    crew_update_action: { id: actionId, status: "done" },
    crew_update_suggestion: { id: suggestionId, status: "dismissed", reason: "Not now." },
    crew_add_contact: { name: "Ada Lovelace", email: "ada@example.com" },
    crew_create_handoff: { from: "manual", to: "sales", title: "Follow up with Acme" },
    crew_post_insight: { title: "Churn is down", impact: "high" },
    crew_find_time: { durationMinutes: 30 },
    crew_calendar_create: { title: "Acme sync", start: "2026-11-23T10:00:00Z", end: "2026-11-23T10:30:00Z" },
  };
}

/**
 * A loopback HTTP proxy to the target that adds `Authorization: Bearer <key>` and passes everything
 * else (Host and Origin included) through unchanged.
 */
export async function startAuthProxy(): Promise<{
  url: string;
  port: number;
  setTarget(url: string, key: string): void;
  close(): Promise<void>;
}> {
  let target = "";
  let key = "";
  const server: Server = createServer((req, res) => {
    const upstream = new URL(req.url ?? "/", target);
    const proxied = httpRequest(upstream, { method: req.method, headers: { ...req.headers, authorization: `Bearer ${key}` } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    proxied.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setTarget(url, bearer) {
      target = url;
      key = bearer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A raw MCP 2026-07-28 request over HTTP: the `_meta` envelope (with `capabilities`), and the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers that era requires.
 */
export function modernPost(
  base: string,
  bearer: string,
  method: string,
  params: Record<string, unknown>,
  options: { name?: string; capabilities?: Record<string, unknown>; path?: string } = {},
) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {},
      },
    },
  };
  const headers: Record<string, string> = { Authorization: `Bearer ${bearer}`, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method };
  if (options.name !== undefined) headers["Mcp-Name"] = options.name;
  return mcpPost(base, body, headers, options.path);
}
