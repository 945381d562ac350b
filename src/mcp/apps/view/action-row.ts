/**
 * One action of the queue with the buttons its status allows. Each button calls
 * `crew_update_action` through the host; the row is then drawn again from the tool's result (the
 * stored action), or `onGone` is told when the action leaves the list (done, dismissed, snoozed).
 */
import type { HostBridge, Json } from "./bridge.ts";
import { announce, callTool, type Features, h, problemText } from "./ui.ts";

export interface ActionView {
  id: string;
  title: string;
  priority: string;
  status?: string;
  type?: string;
  lane?: string;
  source?: string;
  description?: string | null;
  snoozedUntil?: string | null;
}

interface Change {
  label: string;
  /** Shown to screen readers and in the status line once done. */
  done: string;
  args: Json;
  when(a: ActionView): boolean;
}

const open = (a: ActionView) => a.status !== "done" && a.status !== "dismissed";
const DAY_MS = 86_400_000;

function changes(f: Features): Change[] {
  const list: Change[] = [
    {
      label: "Approve",
      done: "approved",
      args: { status: "approved" },
      when: (a) => a.status === "pending" && a.type === "approval",
    },
    {
      label: "Start",
      done: "started",
      args: { status: "in_progress" },
      when: (a) => a.status === undefined || a.status === "pending" || a.status === "approved",
    },
    { label: "Done", done: "marked done", args: { status: "done" }, when: open },
    { label: "Dismiss", done: "dismissed", args: { status: "dismissed" }, when: open },
  ];
  // Snooze exists only where crew_update_action takes `snoozedUntil` (Crew says so in the features).
  if (f.snooze) list.push({ label: "Snooze 1 day", done: "snoozed until tomorrow", args: {}, when: open });
  return list;
}

const label = (s: string | undefined) => (s ?? "").replace(/_/g, " ");

/** Whether an action no longer belongs in a list of open work after a change. */
export const leavesOpenList = (a: ActionView, now: number) =>
  !open(a) || (typeof a.snoozedUntil === "string" && Date.parse(a.snoozedUntil) > now);

export function actionRow(
  bridge: HostBridge,
  f: Features,
  action: ActionView,
  status: HTMLElement,
  after: (updated: ActionView, row: HTMLElement) => void,
): HTMLElement {
  const meta = [action.priority, label(action.status), label(action.lane), action.source && `from ${action.source}`]
    .filter(Boolean)
    .join(" · ");
  const buttons = h("div", { class: "buttons", role: "group", "aria-label": `Actions for ${action.title}` });
  const row = h(
    "li",
    { class: `action priority-${action.priority}`, "data-action-id": action.id },
    h("p", { class: "title" }, action.title),
    action.description ? h("p", { class: "detail" }, action.description) : null,
    h("p", { class: "meta" }, meta),
    buttons,
  );
  if (!f.updateAction) return row;
  for (const change of changes(f)) {
    if (!change.when(action)) continue;
    const button = h("button", { type: "button", "aria-label": `${change.label}: ${action.title}` }, change.label);
    button.addEventListener("click", async () => {
      for (const b of buttons.querySelectorAll("button")) b.setAttribute("disabled", "");
      const args = change.label.startsWith("Snooze") ? { snoozedUntil: new Date(Date.now() + DAY_MS).toISOString() } : change.args;
      const result = await callTool(bridge, "crew_update_action", { id: action.id, ...args });
      if (result.isError || !result.structuredContent) {
        for (const b of buttons.querySelectorAll("button")) b.removeAttribute("disabled");
        announce(status, problemText(result), true);
        return;
      }
      announce(status, `“${action.title}” ${change.done}.`);
      after(result.structuredContent as unknown as ActionView, row);
    });
    buttons.append(button);
  }
  return row;
}
