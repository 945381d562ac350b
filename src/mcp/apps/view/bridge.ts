/**
 * The View side of the MCP Apps bridge (extension `io.modelcontextprotocol/ui`, protocol
 * 2026-01-26): JSON-RPC 2.0 over `postMessage` with the host that framed the app. The package's own
 * `App` class bundles to about 650 KB (it carries the MCP SDK and zod), ten times the size budget of
 * an app document (src/docs/notes/mcp-apps.md), so the few messages the apps use are written here;
 * tests drive them against the package's real `AppBridge`.
 */

export type Json = Record<string, unknown>;

export interface HostContext {
  theme?: "light" | "dark";
  styles?: { variables?: Record<string, string | undefined> };
  [key: string]: unknown;
}

export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

interface Pending {
  resolve(value: Json): void;
  reject(error: Error): void;
}

const APPS_PROTOCOL_VERSION = "2026-01-26";

export class HostBridge {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  onToolResult?: (result: ToolResult) => void;
  onToolInput?: (args: Json) => void;
  onHostContext?: (context: HostContext) => void;

  constructor(private readonly host: Window = window.parent) {
    window.addEventListener("message", (event) => {
      // Only the framing host speaks to the app; anything else posting to this window is ignored.
      if (event.source === this.host) this.receive(event.data);
    });
  }

  private post(message: Json): void {
    // The host's origin is unknown to a sandboxed document (its own origin is opaque).
    this.host.postMessage({ jsonrpc: "2.0", ...message }, "*");
  }

  private receive(message: unknown): void {
    if (typeof message !== "object" || message === null || (message as Json).jsonrpc !== "2.0") return;
    const m = message as { id?: number | string; method?: string; params?: Json; result?: Json; error?: { message?: string } };
    if (m.method === undefined) {
      const waiting = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
      if (!waiting || typeof m.id !== "number") return;
      this.pending.delete(m.id);
      if (m.error) waiting.reject(new Error(m.error.message ?? "The host refused the request."));
      else waiting.resolve(m.result ?? {});
      return;
    }
    const params = m.params ?? {};
    if (m.method === "ui/notifications/tool-result") this.onToolResult?.(params as ToolResult);
    else if (m.method === "ui/notifications/tool-input") this.onToolInput?.((params.arguments as Json) ?? {});
    else if (m.method === "ui/notifications/host-context-changed") this.onHostContext?.(params as HostContext);
    // Requests from the host (ping, ui/resource-teardown) need nothing kept: an empty result.
    if (m.id !== undefined) this.post({ id: m.id, result: {} });
  }

  request(method: string, params: Json): Promise<Json> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ id, method, params });
    });
  }

  notify(method: string, params: Json = {}): void {
    this.post({ method, params });
  }

  /** The handshake: the host answers with its context (theme, style variables, tool), then hears "initialized". */
  async connect(name: string): Promise<HostContext> {
    const answer = await this.request("ui/initialize", {
      appInfo: { name, version: "1.0.0" },
      appCapabilities: {},
      protocolVersion: APPS_PROTOCOL_VERSION,
    });
    this.notify("ui/notifications/initialized");
    return (answer.hostContext as HostContext) ?? {};
  }

  /** A tool of the MCP server, called through the host (which may ask the person first). */
  callTool(name: string, args: Json): Promise<ToolResult> {
    return this.request("tools/call", { name, arguments: args }) as Promise<ToolResult>;
  }

  /** Tells the host the document's height so an inline frame grows with its content. */
  watchSize(): void {
    let last = -1;
    const report = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      this.notify("ui/notifications/size-changed", { height });
    };
    new ResizeObserver(report).observe(document.documentElement);
    report();
  }
}
