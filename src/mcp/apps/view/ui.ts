/**
 * What both apps share: building DOM (text only ever goes through `textContent`, so a title such
 * as `<b>x</b>` shows as typed), the host's theme and style variables, the features Crew embedded
 * for this caller, and tool errors in the app's words.
 */
import type { HostBridge, HostContext, Json, ToolResult } from "./bridge.ts";

type Child = Node | string | null | undefined | false;

export function h(tag: string, props: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

/** What Crew knows about this caller when it served the document (see src/mcp/apps/documents.ts). */
export interface Features {
  /** The caller may call crew_update_action. */
  updateAction: boolean;
  /** crew_update_action takes `snoozedUntil`. */
  snooze: boolean;
  /** The caller may call crew_update_suggestion. */
  updateSuggestion: boolean;
  /** The caller may call crew_suggestions. */
  suggestions: boolean;
}

export function features(): Features {
  const text = document.getElementById("crew-features")?.textContent ?? "{}";
  const found = JSON.parse(text) as Partial<Features>;
  return { updateAction: false, snooze: false, updateSuggestion: false, suggestions: false, ...found };
}

/** The host's theme and its style variables (MCP Apps `hostContext.styles.variables`) on the root. */
export function applyHostContext(context: HostContext): void {
  const root = document.documentElement;
  if (context.theme) root.dataset.theme = context.theme;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith("--") && value) root.style.setProperty(name, value);
  }
}

/** The Crew error code and message of a tool error (its second block is JSON), or of a refused request. */
function errorOf(result: ToolResult): { code: string; message: string } {
  const blocks = result.content ?? [];
  try {
    const parsed = JSON.parse(blocks[1]?.text ?? "") as { error?: string; message?: string };
    return { code: parsed.error ?? "", message: parsed.message ?? blocks[0]?.text ?? "" };
  } catch {
    return { code: "", message: blocks[0]?.text ?? "" };
  }
}

/** A failed change said for the person in front of the app, not the model. */
export function problemText(result: ToolResult): string {
  const { code, message } = errorOf(result);
  if (code === "insufficient_scope")
    return "This connection may read the queue but not change it. Reconnect Crew with write access to act here.";
  if (code === "plan_upgrade_required") return `Your plan does not include changing the queue from here. ${message}`;
  if (code === "not_found") return "This item is gone: someone else changed or removed it. Refresh to see the current list.";
  if (code === "rate_limited" || code === "quota_exceeded")
    return "Crew is getting too many requests from you right now; try again in a minute.";
  return message ? `That did not work: ${message}` : "That did not work. Try again.";
}

/** Calls a tool through the host; a refused request (host or transport) becomes a tool error. */
export async function callTool(bridge: HostBridge, name: string, args: Json): Promise<ToolResult> {
  try {
    return await bridge.callTool(name, args);
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }] };
  }
}

/** A polite live region: what just happened, read out by screen readers. */
export function announce(status: HTMLElement, text: string, problem = false): void {
  status.textContent = text;
  status.classList.toggle("problem", problem);
}

/** Connects to the host, follows its theme, and hands every tool result (initial and later) to `render`. */
export async function start(bridge: HostBridge, name: string, render: (result: ToolResult) => void): Promise<void> {
  bridge.onHostContext = applyHostContext;
  bridge.onToolResult = render;
  applyHostContext(await bridge.connect(name));
  bridge.watchSize();
}
