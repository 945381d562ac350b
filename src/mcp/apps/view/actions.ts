/**
 * The actions app (`ui://crew/actions`): the queue `crew_list_actions` returned, filters that call
 * it again through the host, and per action the changes of action-row.ts.
 */
import { type ActionView, actionRow } from "./action-row.ts";
import { HostBridge, type Json, type ToolResult } from "./bridge.ts";
import { announce, callTool, features, h, problemText, start } from "./ui.ts";

const bridge = new HostBridge();
const f = features();
const list = document.getElementById("actions") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;
const more = document.getElementById("more") as HTMLButtonElement;
const form = document.getElementById("filters") as HTMLFormElement;
const FILTERS = ["status", "lane", "type"] as const;

let nextCursor: string | null = null;

function filterArgs(): Json {
  const args: Json = {};
  for (const name of FILTERS) {
    const value = (form.elements.namedItem(name) as HTMLSelectElement).value;
    if (value) args[name] = value;
  }
  return args;
}

/** An updated action stays when it still matches the filters (a snoozed one is hidden until then). */
function afterChange(updated: ActionView, row: HTMLElement): void {
  const wanted = (form.elements.namedItem("status") as HTMLSelectElement).value;
  const snoozed = typeof updated.snoozedUntil === "string" && Date.parse(updated.snoozedUntil) > Date.now();
  if (!snoozed && (!wanted || updated.status === wanted)) {
    row.replaceWith(actionRow(bridge, f, updated, status, afterChange));
    return;
  }
  row.remove();
  if (!list.children.length) list.append(empty());
}

const empty = () => h("li", { class: "empty" }, "Nothing in the queue matches these filters.");

function render(result: ToolResult, append = false): void {
  if (result.isError || !result.structuredContent) {
    announce(status, problemText(result), true);
    return;
  }
  const page = result.structuredContent as { actions?: ActionView[]; nextCursor?: string | null };
  if (!append) list.replaceChildren();
  for (const action of page.actions ?? []) list.append(actionRow(bridge, f, action, status, afterChange));
  if (!list.children.length) list.append(empty());
  nextCursor = page.nextCursor ?? null;
  more.hidden = nextCursor === null;
}

async function reload(append: boolean): Promise<void> {
  const args = filterArgs();
  if (append && nextCursor) args.cursor = nextCursor;
  announce(status, "Loading…");
  const result = await callTool(bridge, "crew_list_actions", args);
  render(result, append);
  if (!result.isError) announce(status, "");
}

form.addEventListener("change", () => void reload(false));
form.addEventListener("submit", (event) => event.preventDefault());
more.addEventListener("click", () => void reload(true));

// The model's own filters arrive as the tool's input: the selects show them.
bridge.onToolInput = (args) => {
  for (const name of FILTERS) {
    const select = form.elements.namedItem(name) as HTMLSelectElement;
    if (typeof args[name] === "string") select.value = args[name] as string;
  }
};

if (!f.updateAction) announce(status, "Read only: this connection may list the queue but not change it.");
void start(bridge, "crew-actions", (result) => render(result));
