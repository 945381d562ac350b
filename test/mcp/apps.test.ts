/**
 * MCP Apps (extension io.modelcontextprotocol/ui) through real SDK clients: the ui:// resources
 * and the tools' `_meta.ui` for a client declaring the extension (over HTTP and stdio), the
 * documents' self-containment and size, what each caller may do embedded in the document, and
 * no change at all for a stdio client without the extension. The browser side is
 * test/mcp/apps-browser.test.ts.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appDocuments } from "../../scripts/build-mcp-apps.ts";
import { APP_TEMPLATES } from "../../src/mcp/apps/documents.generated.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const UI_EXTENSION = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };
const APP_MIME = "text/html;profile=mcp-app";
const APPS = { "ui://crew/briefing": "crew_briefing", "ui://crew/actions": "crew_list_actions" } as const;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let s: TestServer;
let adminKey: string;
const clients: Client[] = [];

async function appClient(key: string): Promise<Client> {
  const client = new Client({ name: "apps-host", version: "1.0.0" }, { capabilities: { extensions: UI_EXTENSION } as never });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

async function readApp(client: Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0]).toMatchObject({ uri, mimeType: APP_MIME, _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } } });
  return String((contents[0] as { text: string }).text);
}

const featuresOf = (html: string) => JSON.parse(/id="crew-features">([^<]*)<\/script>/.exec(html)?.[1] ?? "null");

/** Anything that would make the document fetch from, or point at, another place. */
function externalReferences(html: string): string[] {
  const patterns = [
    /https?:\/\//gi,
    /\b(src|href|srcset|action|poster)\s*=/gi,
    /url\(\s*['"]?(?!data:)/gi,
    /@import/gi,
    /<(link|iframe|img|object|embed)\b/gi,
  ];
  return patterns.flatMap((p) => html.match(p) ?? []);
}

beforeAll(async () => {
  s = await startServer();
  ({ key: adminKey } = await s.userWithKey("operator", ["admin"]));
  await api(s.url, adminKey)("/api/mcp/actions", { body: { title: "Renew the Acme contract", priority: "critical" } });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await s.close();
});

describe("MCP Apps over HTTP", () => {
  it("lists and reads both apps as self-contained documents under 60 KB, and the tools name them", async () => {
    const client = await appClient(adminKey);
    const { resources } = await client.listResources();
    for (const uri of Object.keys(APPS)) expect(resources.find((r) => r.uri === uri)).toMatchObject({ mimeType: APP_MIME });

    for (const uri of Object.keys(APPS)) {
      const html = await readApp(client, uri);
      expect(html.startsWith("<!doctype html>")).toBe(true);
      expect(Buffer.byteLength(html)).toBeLessThanOrEqual(60 * 1024);
      expect(externalReferences(html)).toEqual([]);
      // The document's own policy: nothing but its inline script and style, by hash.
      const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
      expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+';/);
      const script = /<script>([\s\S]+?)<\/script>/.exec(html)?.[1] ?? "";
      expect(script.length).toBeGreaterThan(1000);
      expect(csp).toContain(`script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`);
      expect(featuresOf(html)).toEqual({ updateAction: true, snooze: true, updateSuggestion: true, suggestions: true });
    }

    const { tools } = await client.listTools();
    for (const [uri, name] of Object.entries(APPS)) {
      expect(tools.find((t) => t.name === name)?._meta).toEqual({ ui: { resourceUri: uri }, "ui/resourceUri": uri });
    }
    expect(tools.filter((t) => t._meta).map((t) => t.name)).toEqual(expect.arrayContaining(Object.values(APPS)));
    expect(tools.filter((t) => t._meta)).toHaveLength(2);
  });

  it("serves the documents built from src/mcp/apps/view (the generated module is up to date)", async () => {
    expect(APP_TEMPLATES).toEqual(await appDocuments());
  });

  it("tells a read-only caller's document it may not change the queue; hides the apps from a plan without tools", async () => {
    const { key: readKey } = await s.userWithKey("operator", ["read"]);
    const reader = await appClient(readKey);
    expect(featuresOf(await readApp(reader, "ui://crew/actions"))).toMatchObject({ updateAction: false, suggestions: true });

    const { key: liteKey } = await s.userWithKey("lite", ["admin"]);
    const lite = await appClient(liteKey);
    expect((await lite.listResources()).resources.filter((r) => r.uri.startsWith("ui://"))).toEqual([]);
    await expect(lite.readResource({ uri: "ui://crew/actions" })).rejects.toMatchObject({ code: -32002 });
    await expect((await appClient(adminKey)).readResource({ uri: "ui://crew/nothing" })).rejects.toMatchObject({ code: -32002 });
  });

  it("gives the same tool results with and without the extension; briefing actions carry their id", async () => {
    const withApps = await appClient(adminKey);
    const plain = await connectHttp(s.url, adminKey);
    clients.push(plain);
    for (const name of Object.values(APPS)) {
      const a = (await withApps.callTool({ name, arguments: {} })) as CallToolResult;
      const b = (await plain.callTool({ name, arguments: {} })) as CallToolResult;
      expect(a.isError).toBeFalsy();
      expect(a).toEqual(b);
    }
    const briefing = (await plain.callTool({ name: "crew_briefing", arguments: {} })) as CallToolResult;
    expect((briefing.structuredContent as any).pendingActions[0]).toEqual({
      id: expect.stringMatching(/^act_/),
      title: "Renew the Acme contract",
      priority: "critical",
      source: "api",
    });
  });
});

describe("MCP Apps over stdio (the client's capabilities are known)", () => {
  async function stdioClient(extensions: boolean): Promise<Client> {
    const client = new Client(
      { name: "apps-stdio", version: "1.0.0" },
      extensions ? { capabilities: { extensions: UI_EXTENSION } as never } : {},
    );
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: s.config.databaseUrl,
      BASE_URL: s.config.baseUrl,
      CREW_SECRET: "test-secret-test-secret-test-secret-00",
      LOG_LEVEL: "error",
      CREW_API_KEY: adminKey,
    };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: ["bin/crew.js", "mcp"], cwd: ROOT, env, stderr: "pipe" }),
    );
    clients.push(client);
    return client;
  }

  it("offers the apps to a client declaring the extension and nothing new to one without it", async () => {
    const [withApps, plain] = await Promise.all([stdioClient(true), stdioClient(false)]);

    const declared = await withApps.listResources();
    expect(declared.resources.filter((r) => r.uri.startsWith("ui://")).map((r) => r.uri)).toEqual(Object.keys(APPS));
    expect((await withApps.listTools()).tools.find((t) => t.name === "crew_briefing")?._meta).toMatchObject({
      ui: { resourceUri: "ui://crew/briefing" },
    });

    const { resources } = await plain.listResources();
    expect(resources.map((r) => r.uri).filter((u) => !u.startsWith("crew://"))).toEqual([]);
    const { tools } = await plain.listTools();
    expect(tools.filter((t) => t._meta !== undefined)).toEqual([]);
    await expect(plain.readResource({ uri: "ui://crew/briefing" })).rejects.toMatchObject({ code: -32002 });
  }, 60_000);
});
