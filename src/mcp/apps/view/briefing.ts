/**
 * The briefing app (`ui://crew/briefing`): the text `crew_briefing` returned, its critical and high
 * pending actions with their buttons, and the top open suggestions (`crew_suggestions`, through
 * the host) with their evidence where Crew records it and Accept / Dismiss where the caller may
 * call `crew_update_suggestion`.
 */
import { type ActionView, actionRow, leavesOpenList } from "./action-row.ts";
import { HostBridge, type ToolResult } from "./bridge.ts";
import { announce, callTool, features, h, problemText, start } from "./ui.ts";

const bridge = new HostBridge();
const f = features();
const text = document.getElementById("briefing") as HTMLElement;
const when = document.getElementById("generated") as HTMLElement;
const actions = document.getElementById("actions") as HTMLElement;
const suggestions = document.getElementById("suggestions") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;
const TOP_SUGGESTIONS = 3;

interface Evidence {
  kind?: string;
  title?: string;
  excerpt?: string;
}
interface Suggestion {
  id?: string;
  agent: string;
  title: string;
  detail?: string;
  priority: string;
  evidence?: Evidence[];
}

const noneLeft = () => h("li", { class: "empty" }, "No critical or high actions are waiting.");

function afterChange(updated: ActionView, row: HTMLElement): void {
  if (leavesOpenList(updated, Date.now())) {
    row.remove();
    if (!actions.children.length) actions.append(noneLeft());
  } else row.replaceWith(actionRow(bridge, f, updated, status, afterChange));
}

function suggestionItem(s: Suggestion): HTMLElement {
  const item = h(
    "li",
    { class: `suggestion priority-${s.priority}` },
    h("p", { class: "title" }, s.title),
    s.detail ? h("p", { class: "detail" }, s.detail) : null,
    h("p", { class: "meta" }, `${s.priority} · from ${s.agent}`),
  );
  const evidence = (s.evidence ?? []).filter((e) => e.title || e.excerpt);
  if (evidence.length) {
    item.append(h("p", { class: "meta" }, `Based on: ${evidence.map((e) => e.title ?? e.excerpt).join("; ")}`));
  }
  if (f.updateSuggestion && s.id) {
    const buttons = h("div", { class: "buttons", role: "group", "aria-label": `Suggestion ${s.title}` });
    for (const [label, next] of [
      ["Accept", "accepted"],
      ["Dismiss", "dismissed"],
    ] as const) {
      const button = h("button", { type: "button", "aria-label": `${label} suggestion: ${s.title}` }, label);
      button.addEventListener("click", async () => {
        const result = await callTool(bridge, "crew_update_suggestion", { id: s.id, status: next });
        if (result.isError) return announce(status, problemText(result), true);
        announce(status, `Suggestion “${s.title}” ${next}.`);
        item.remove();
      });
      buttons.append(button);
    }
    item.append(buttons);
  }
  return item;
}

async function loadSuggestions(): Promise<void> {
  if (!f.suggestions) return;
  const result = await callTool(bridge, "crew_suggestions", {});
  if (result.isError) return announce(status, problemText(result), true);
  const all = ((result.structuredContent?.suggestions as Suggestion[]) ?? []).slice(0, TOP_SUGGESTIONS);
  suggestions.replaceChildren(...all.map(suggestionItem));
  if (!all.length) suggestions.append(h("li", { class: "empty" }, "No open suggestions."));
}

function render(result: ToolResult): void {
  if (result.isError || !result.structuredContent) {
    announce(status, problemText(result), true);
    return;
  }
  const b = result.structuredContent as { briefing?: string; generatedAt?: string; pendingActions?: ActionView[] };
  text.textContent = b.briefing ?? "";
  when.textContent = b.generatedAt ? `Made ${new Date(b.generatedAt).toLocaleString()}` : "";
  const urgent = (b.pendingActions ?? []).filter((a) => a.priority === "critical" || a.priority === "high");
  // Briefings stored before actions carried their id cannot be acted on here; they show as text.
  actions.replaceChildren(...urgent.map((a) => actionRow(bridge, a.id ? f : { ...f, updateAction: false }, a, status, afterChange)));
  if (!urgent.length) actions.append(noneLeft());
  void loadSuggestions();
}

void start(bridge, "crew-briefing", render);
