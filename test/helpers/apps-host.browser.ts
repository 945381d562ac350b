/**
 * A minimal MCP Apps host, run in Chromium by test/helpers/apps-host.ts: the package's own
 * AppBridge talks to the app in a sandboxed iframe and forwards its tool calls to `crewCallTool`,
 * which the test wires to a real MCP client connected to Crew.
 */
import { AppBridge, type McpUiHostContext, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface Mount {
  html: string;
  toolInput: Record<string, unknown>;
  toolResult: any;
  hostContext: McpUiHostContext;
}

declare global {
  interface Window {
    crewCallTool(params: unknown): Promise<any>;
    mountApp(mount: Mount): Promise<void>;
  }
}

let bridge: AppBridge | undefined;

window.mountApp = async ({ html, toolInput, toolResult, hostContext }) => {
  await bridge?.close();
  document.getElementById("frame")?.remove();
  const iframe = document.createElement("iframe");
  iframe.id = "frame";
  iframe.title = "Crew app";
  // As hosts do: scripts run, but in an opaque origin (no allow-same-origin).
  iframe.setAttribute("sandbox", "allow-scripts");
  document.body.append(iframe);
  const host = new AppBridge(null, { name: "crew-test-host", version: "1.0.0" }, { serverTools: {} }, { hostContext });
  bridge = host;
  host.oncalltool = (params) => window.crewCallTool(params);
  host.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    host.oninitialized = () => resolve();
  });
  const frameWindow = iframe.contentWindow as Window;
  await host.connect(new PostMessageTransport(frameWindow, frameWindow));
  iframe.srcdoc = html;
  await initialized;
  await host.sendToolInput({ arguments: toolInput });
  await host.sendToolResult(toolResult);
};
