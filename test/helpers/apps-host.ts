/**
 * Serves the MCP Apps test host (apps-host.browser.ts, bundled with esbuild) on loopback and mounts
 * an app in it: the document read from Crew, the tool's input and result, the host's context, and
 * every tool call of the app sent through `callTool` (a real MCP client in the test).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Page } from "playwright-core";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test host</title><style>body{margin:0}iframe{display:block;width:100%;border:0}</style></head>
<body><script src="/host.js"></script></body></html>`;

export interface AppsHost {
  url: string;
  close(): Promise<void>;
}

export async function startAppsHost(): Promise<AppsHost> {
  const out = await build({
    entryPoints: [fileURLToPath(new URL("apps-host.browser.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
  });
  const script = out.outputFiles[0]?.text ?? "";
  const server: Server = createServer((req, res) => {
    const js = req.url === "/host.js";
    res.writeHead(200, { "Content-Type": js ? "text/javascript" : "text/html; charset=utf-8" });
    res.end(js ? script : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface MountOptions {
  html: string;
  toolInput?: Record<string, unknown>;
  toolResult: unknown;
  hostContext?: Record<string, unknown>;
}

/** Opens the host page with `callTool` behind the bridge and mounts the app; resolves once the app has the result. */
export async function mountApp(page: Page, host: AppsHost, callTool: (params: any) => Promise<unknown>, options: MountOptions) {
  if (!(page as any).__crewCallTool) {
    await page.exposeFunction("crewCallTool", callTool);
    (page as any).__crewCallTool = true;
  }
  if (page.url() !== host.url) await page.goto(host.url);
  await page.evaluate((m) => window.mountApp(m as any), {
    html: options.html,
    toolInput: options.toolInput ?? {},
    toolResult: options.toolResult,
    hostContext: options.hostContext ?? { theme: "light" },
  });
  const frame = await (await page.$("#frame"))?.contentFrame();
  if (!frame) throw new Error("the app's frame did not load");
  return frame;
}
