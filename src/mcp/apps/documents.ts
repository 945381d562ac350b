/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, src/docs/notes/mcp-apps.md): `ui://crew/briefing`
 * and `ui://crew/actions`, HTML documents that render `crew_briefing` and `crew_list_actions` in the
 * host and act on the queue through it. The tools name their app in `_meta.ui.resourceUri`; the
 * tool results themselves are the same with or without the extension.
 *
 * A 2025-era HTTP request carries no client capabilities after `initialize` (every request is
 * stateless), so there the apps are offered to every client: hosts without the extension ignore
 * `_meta.ui` and never read `ui://` resources. Where the capabilities are known (stdio: one client
 * per process), only a client that declares the extension sees them.
 */
import { getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import type { ClientCapabilities, ReadResourceResult, Resource, Tool } from "@modelcontextprotocol/server";
import type { Principal } from "../../domain.ts";
import { type McpTool, visibleTools } from "../tools.ts";
import { APP_TEMPLATES } from "./documents.generated.ts";

interface McpApp {
  name: keyof typeof APP_TEMPLATES;
  uri: string;
  /** The tool whose results the app renders; a caller who may not call it is not offered the app. */
  tool: string;
  title: string;
  description: string;
}

export const MCP_APPS: readonly McpApp[] = [
  {
    name: "briefing",
    uri: "ui://crew/briefing",
    tool: "crew_briefing",
    title: "Briefing app",
    description: "Today's briefing with its critical and high actions (start, done, dismiss) and the top suggestions.",
  },
  {
    name: "actions",
    uri: "ui://crew/actions",
    tool: "crew_list_actions",
    title: "Action queue app",
    description: "The action queue with filters; approve, start, finish, dismiss (and snooze) each action.",
  },
];

/** Rendering hints and the sandbox policy: no host may be reached (the documents are self-contained). */
const UI_META = {
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true },
};

/** Where each document carries what this caller may do (see view/ui.ts `features`). */
const FEATURES_SLOT = 'id="crew-features">{}</script>';

/** Unknown capabilities (a stateless 2025-era request) offer the apps; known ones only when they declare the extension. */
export function appsOffered(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities === undefined || getUiCapability(capabilities as Parameters<typeof getUiCapability>[0]) !== undefined;
}

const appOfTool = new Map(MCP_APPS.map((app) => [app.tool, app]));

/** The tools with their app named in `_meta` (also under the older `ui/resourceUri` key, which some hosts still read). */
export function withAppMeta(tools: Tool[]): Tool[] {
  return tools.map((tool) => {
    const app = appOfTool.get(tool.name);
    return app ? { ...tool, _meta: { ...tool._meta, ui: { resourceUri: app.uri }, [RESOURCE_URI_META_KEY]: app.uri } } : tool;
  });
}

/** What the app may offer this caller, from the tools it may call (and their schemas, so later tools light up by themselves). */
function featuresFor(tools: Tool[]) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const update = byName.get("crew_update_action");
  const properties = (update?.inputSchema.properties ?? {}) as Record<string, unknown>;
  return {
    updateAction: update !== undefined,
    snooze: "snoozedUntil" in properties,
    updateSuggestion: byName.has("crew_update_suggestion"),
    suggestions: byName.has("crew_suggestions"),
  };
}

export interface McpApps {
  list(principal: Principal): Resource[];
  /** The document, or null when the URI names no app this caller is offered. */
  read(uri: string, principal: Principal): ReadResourceResult | null;
}

export function mcpApps(catalog: Map<string, McpTool>): McpApps {
  const offered = (principal: Principal) => {
    const tools = visibleTools(catalog, principal);
    const names = new Set(tools.map((t) => t.name));
    return { tools, apps: MCP_APPS.filter((app) => names.has(app.tool)) };
  };
  return {
    list: (principal) =>
      offered(principal).apps.map((app) => ({
        uri: app.uri,
        name: `${app.name}-app`,
        title: app.title,
        description: app.description,
        mimeType: RESOURCE_MIME_TYPE,
        _meta: UI_META,
      })),
    read(uri, principal) {
      const { tools, apps } = offered(principal);
      const app = apps.find((a) => a.uri === uri);
      if (!app) return null;
      // JSON inside <script>: `<` escaped so no text can close the element.
      const features = JSON.stringify(featuresFor(tools)).replace(/</g, "\\u003c");
      const text = APP_TEMPLATES[app.name].replace(FEATURES_SLOT, () => `id="crew-features">${features}</script>`);
      return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text, _meta: UI_META }] };
    },
  };
}
