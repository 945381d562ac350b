/**
 * Read-only and toolset views of `/mcp` (src/docs/notes/mcp-clients.md#read-only-and-toolsets), as
 * GitHub's and Linear's servers offer them: `{base}/mcp/readonly` or `X-MCP-Readonly: true` keeps
 * only the read-only tools (annotation `readOnlyHint`); `{base}/mcp/x/{toolset}` or
 * `X-MCP-Toolsets: a,b` keeps only the tools of those toolsets; both narrow together. A view
 * changes which tools are listed and callable, nothing else: the credential's plan and scopes
 * still decide within it, and resources and prompts stay as they are.
 */
import { ApiError } from "../errors.ts";

/** What a view looks at of a tool (tools.ts's McpTool has it). */
interface ViewedTool {
  mcp: { name: string; annotations: { readOnlyHint?: boolean } };
}

export const TOOLSETS = ["briefing", "actions", "contacts", "calendar", "agents"] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** Each tool's toolset, by tool name (a tool missing here is a build error of the catalog, see toolsetOf). */
const TOOLSET_OF: Record<string, Toolset> = {
  crew_briefing: "briefing",
  crew_standup: "briefing",
  crew_company_profile: "briefing",
  crew_suggestions: "briefing",
  crew_update_suggestion: "briefing",
  crew_post_insight: "briefing",
  crew_list_actions: "actions",
  crew_add_action: "actions",
  crew_update_action: "actions",
  crew_create_handoff: "actions",
  crew_add_contact: "contacts",
  crew_find_time: "calendar",
  crew_calendar_create: "calendar",
  crew_agent_status: "agents",
  crew_run_agent: "agents",
  crew_trigger_agent: "agents",
};

export function toolsetOf(toolName: string): Toolset {
  const toolset = TOOLSET_OF[toolName];
  if (!toolset) throw new Error(`MCP tool ${toolName} has no toolset (src/mcp/toolsets.ts)`);
  return toolset;
}

export interface ToolView {
  readOnly: boolean;
  /** null: every toolset. */
  toolsets: ReadonlySet<Toolset> | null;
}

export const FULL_VIEW: ToolView = { readOnly: false, toolsets: null };

const isToolset = (name: string): name is Toolset => (TOOLSETS as readonly string[]).includes(name);

const unknownToolset = (name: string, where: string) =>
  new ApiError(400, "invalid_request", `Unknown toolset "${name}" in ${where}; the toolsets are ${TOOLSETS.join(", ")}.`);

/**
 * The view a request asks for: its path's (`/mcp/readonly`, `/mcp/x/{toolset}`,
 * `/mcp/x/{toolset}/readonly`) narrowed by its headers. An unknown toolset or a readonly value
 * other than true/false is a 400, so a typo never widens what a client gets.
 */
export function viewOf(path: string, headers: { readonly: string | undefined; toolsets: string | undefined }): ToolView {
  const segments = path.split("/").filter(Boolean); // ["mcp", …]
  let readOnly = segments.at(-1) === "readonly";
  let toolsets: Set<Toolset> | null = null;
  if (segments[1] === "x" && segments[2] !== undefined) {
    if (!isToolset(segments[2])) throw unknownToolset(segments[2], "the path");
    toolsets = new Set([segments[2]]);
  }
  if (headers.readonly !== undefined) {
    const value = headers.readonly.trim().toLowerCase();
    if (value !== "true" && value !== "false") {
      throw new ApiError(400, "invalid_request", `X-MCP-Readonly must be true or false, not "${headers.readonly}".`);
    }
    readOnly ||= value === "true";
  }
  if (headers.toolsets !== undefined) {
    const asked = headers.toolsets
      .split(",")
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean);
    for (const name of asked) if (!isToolset(name)) throw unknownToolset(name, "X-MCP-Toolsets");
    const named = new Set(asked as Toolset[]);
    toolsets = toolsets ? new Set([...toolsets].filter((t) => named.has(t))) : named;
  }
  return readOnly || toolsets ? { readOnly, toolsets } : FULL_VIEW;
}

/** Why this view leaves the tool out, or null when it is in. */
export function outsideView(tool: ViewedTool, view: ToolView): string | null {
  if (view.readOnly && tool.mcp.annotations.readOnlyHint !== true) {
    return `${tool.mcp.name} changes data, and this endpoint is read-only (/mcp/readonly or X-MCP-Readonly: true); the write tools are on /mcp itself.`;
  }
  const toolset = toolsetOf(tool.mcp.name);
  if (view.toolsets && !view.toolsets.has(toolset)) {
    const open = [...view.toolsets].join(", ") || "none";
    return `${tool.mcp.name} belongs to the ${toolset} toolset, which this endpoint leaves out (toolsets here: ${open}).`;
  }
  return null;
}

/** The catalog's tools within the view. */
export const inView = (tool: ViewedTool, view: ToolView): boolean => view === FULL_VIEW || outsideView(tool, view) === null;
