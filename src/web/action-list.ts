/**
 * Actions as a list with their controls (SPEC §12): approve, start, done, dismiss, and priority and
 * lane. Every control is a small form posting to /actions/{id} (no JavaScript needed); `back`
 * brings the person to the list they acted from. Used by /actions, /briefing and /dashboard.
 */
import { html } from "hono/html";
import type * as v from "valibot";
import { ACTION_LANES, PRIORITIES } from "../domain.ts";
import type { Action } from "../operations/actions.ts";
import { ago, csrfField, type Html, type PageAccount } from "./layout.ts";
import { priorityBadge } from "./ui.ts";

export type ActionView = v.InferOutput<typeof Action>;

const LANE_TEXT: Record<string, string> = { today: "Today", this_week: "This week", later: "Later" };
const STATUS_TEXT: Record<string, string> = {
  pending: "Pending",
  approved: "Approved",
  in_progress: "In progress",
  done: "Done",
  dismissed: "Dismissed",
};
export const laneText = (lane: string) => LANE_TEXT[lane] ?? lane;
export const statusText = (status: string) => STATUS_TEXT[status] ?? status;

function statusButton(account: PageAccount, a: ActionView, back: string, status: string, verb: string, quiet = false): Html {
  return html`<form method="post" action="/actions/${a.id}" class="inline"${status === "dismissed" ? html` data-confirm="Dismiss “${a.title}”?"` : ""}>
    ${csrfField(account)}<input type="hidden" name="back" value="${back}"><input type="hidden" name="status" value="${status}">
    <button type="submit" class="btn btn-small${quiet ? " btn-quiet" : ""}">${verb}<span class="sr-only"> “${a.title}”</span></button>
  </form>`;
}

function controls(account: PageAccount, a: ActionView, back: string): Html {
  const open = a.status !== "done" && a.status !== "dismissed";
  const option = (value: string, text: string, current: string) =>
    html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`;
  return html`<div class="action-controls">
    ${a.status === "pending" ? statusButton(account, a, back, "approved", "Approve") : ""}
    ${a.status === "pending" || a.status === "approved" ? statusButton(account, a, back, "in_progress", "Start") : ""}
    ${open ? statusButton(account, a, back, "done", "Done") : ""}
    ${open ? statusButton(account, a, back, "dismissed", "Dismiss", true) : statusButton(account, a, back, "pending", "Reopen", true)}
    <details class="change">
      <summary class="btn btn-small btn-quiet">Priority and lane<span class="sr-only"> of “${a.title}”</span></summary>
      <form method="post" action="/actions/${a.id}" class="change-box">
        ${csrfField(account)}<input type="hidden" name="back" value="${back}">
        <label for="${a.id}-priority">Priority<span class="sr-only"> of “${a.title}”</span></label>
        <select id="${a.id}-priority" name="priority">${PRIORITIES.map((p) => option(p, p, a.priority))}</select>
        <label for="${a.id}-lane">Lane<span class="sr-only"> of “${a.title}”</span></label>
        <select id="${a.id}-lane" name="lane">${ACTION_LANES.map((l) => option(l, laneText(l), a.lane))}</select>
        <button type="submit" class="btn btn-small btn-primary">Save<span class="sr-only"> priority and lane of “${a.title}”</span></button>
      </form>
    </details>
  </div>`;
}

export function actionList(account: PageAccount, actions: ActionView[], back: string, now: number): Html {
  const items = actions.map(
    (a) => html`<li class="action-item action-${a.priority}" id="${a.id}">
      <div class="action-head">
        ${priorityBadge(a.priority)}
        <span class="action-title">${a.title}</span>
      </div>
      ${a.description ? html`<p class="action-desc">${a.description}</p>` : ""}
      <p class="action-meta small muted">
        <span class="badge badge-status-${a.status}">${statusText(a.status)}</span>
        <span>${laneText(a.lane)}</span> · <span>from ${a.source}</span>${a.category ? html` · <span>${a.category}</span>` : ""} · ${ago(a.createdAt, now)}
      </p>
      ${controls(account, a, back)}
    </li>`,
  );
  return html`<ul class="action-list">${items}</ul>`;
}
