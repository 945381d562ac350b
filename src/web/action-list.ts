/**
 * Actions as a list with their controls: approve (approval actions only), start, done, dismiss,
 * priority and lane, and snooze; done and dismissed ones muted; an agent-made one links to its run. Every control is a small form posting to /actions/{id} (no JavaScript needed); `back`
 * brings the person to the list they acted from. Used by /actions, /briefing and /dashboard.
 */

import { html } from "hono/html";
import type * as v from "valibot";
import { ACTION_LANES, PRIORITIES } from "../domain.ts";
import { ago, csrfField, type Html, type PageAccount } from "../html/layout.ts";
import { priorityBadge } from "../html/ui.ts";
import { sourceText } from "../html/words.ts";
import type { Action } from "../operations/actions.ts";
import { basedOn } from "./suggestions-page.ts";

export type ActionView = v.InferOutput<typeof Action>;

const LANE_TEXT: Record<string, string> = { today: "Today", this_week: "This week", later: "Later" };
const STATUS_TEXT: Record<string, string> = {
  pending: "Pending",
  approved: "Approved",
  in_progress: "In progress",
  done: "Done",
  dismissed: "Dismissed",
  held: "Held for review",
};
export const laneText = (lane: string) => LANE_TEXT[lane] ?? lane;
export const statusText = (status: string) => STATUS_TEXT[status] ?? status;

/** How long the Snooze control hides an action, in days; 0 wakes it. */
export const SNOOZE_DAYS: Record<string, number> = { "1": 1, "3": 3, "7": 7, "0": 0 };

/**
 * The notice after each change of an action (posted to /actions/{id}, which redirects back with
 * `done=` one of these codes): it says what changed rather than only "updated".
 */
export const ACTION_CHANGED: Record<string, string> = {
  approved: "Action approved.",
  in_progress: "Action started: it is in progress.",
  done: "Action marked done: it leaves the open queue (filter Show: All to see it).",
  dismissed: "Action dismissed: it leaves the open queue (filter Show: All to see it).",
  pending: "Action reopened: it is pending again.",
  changed: "Priority and lane saved.",
  snoozed: "Action snoozed: hidden from the open queue until the time shown under Show: Snoozed.",
  woken: "Action woken: it is back in the open queue.",
};

/** The done= code of a change posted from an action's controls. */
export const actionChangeCode = (form: { status?: string; snooze?: string }): string =>
  form.status && Object.hasOwn(ACTION_CHANGED, form.status)
    ? form.status
    : form.snooze !== undefined
      ? form.snooze === "0"
        ? "woken"
        : "snoozed"
      : "changed";

const dateTime = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/** The keyboard's key for a change (src/web/assets/crew.js): e done, a approve, d dismiss, s snooze. */
const KEY_OF: Record<string, string> = { done: "e", approved: "a", dismissed: "d" };

function statusButton(account: PageAccount, a: ActionView, back: string, status: string, verb: string, quiet = false): Html {
  const key = KEY_OF[status];
  return html`<form method="post" action="/actions/${a.id}" class="inline"${status === "dismissed" ? html` data-confirm="Dismiss “${a.title}”?"` : ""}${
    key ? html` data-key="${key}"` : ""
  }>
    ${csrfField(account)}<input type="hidden" name="back" value="${back}"><input type="hidden" name="status" value="${status}"><input type="hidden" name="was" value="${a.status}">
    <button type="submit" class="btn btn-small${quiet ? " btn-quiet" : ""}">${verb}<span class="sr-only"> “${a.title}”</span></button>
  </form>`;
}

function snoozeControl(account: PageAccount, a: ActionView, back: string, now: number): Html {
  const until = a.snoozedUntil ? Date.parse(a.snoozedUntil) : 0;
  if (until > now)
    return html`<form method="post" action="/actions/${a.id}" class="inline">
      ${csrfField(account)}<input type="hidden" name="back" value="${back}"><input type="hidden" name="snooze" value="0">
      <button type="submit" class="btn btn-small btn-quiet">Wake<span class="sr-only"> “${a.title}”</span></button>
    </form>`;
  return html`<details class="change">
      <summary class="btn btn-small btn-quiet">Snooze<span class="sr-only"> “${a.title}”</span></summary>
      <form method="post" action="/actions/${a.id}" class="change-box" data-key="s">
        ${csrfField(account)}<input type="hidden" name="back" value="${back}">
        <label for="${a.id}-snooze">Hide<span class="sr-only"> “${a.title}”</span> for</label>
        <select id="${a.id}-snooze" name="snooze"><option value="1">1 day</option><option value="3">3 days</option><option value="7">a week</option></select>
        <button type="submit" class="btn btn-small btn-primary">Snooze<span class="sr-only"> “${a.title}” now</span></button>
      </form>
    </details>`;
}

function controls(account: PageAccount, a: ActionView, back: string, now: number): Html {
  const open = a.status !== "done" && a.status !== "dismissed";
  const option = (value: string, text: string, current: string) =>
    html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`;
  return html`<div class="action-controls">
    ${a.status === "pending" && a.type === "approval" ? statusButton(account, a, back, "approved", "Approve") : ""}
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
    ${open ? snoozeControl(account, a, back, now) : ""}
  </div>`;
}

export function actionList(account: PageAccount, actions: ActionView[], back: string, now: number): Html {
  const items = actions.map(
    (
      a,
    ) => html`<li class="action-item action-${a.priority}${a.status === "done" || a.status === "dismissed" ? " action-closed" : ""}" id="${a.id}" data-item tabindex="-1">
      <div class="action-head">
        ${priorityBadge(a.priority)}
        <span class="action-title">${a.title}</span>
      </div>
      ${a.description ? html`<p class="action-desc">${a.description}</p>` : ""}
      <p class="action-meta small muted">
        <span class="badge badge-status-${a.status}">${statusText(a.status)}</span>
        <span>${laneText(a.lane)}</span> · <span title="${a.source}">from ${sourceText(a.source)}</span>${
          a.runId
            ? html` · <a href="/agents/${a.source}#run-${a.runId}" class="run-link">its run<span class="sr-only"> for “${a.title}”</span></a>`
            : ""
        }${a.snoozedUntil && Date.parse(a.snoozedUntil) > now ? html` · <span class="snoozed">snoozed until <time datetime="${a.snoozedUntil}" data-show="absolute">${dateTime(Date.parse(a.snoozedUntil))} UTC</time></span>` : ""}${a.category ? html` · <span>${a.category}</span>` : ""} · ${ago(a.createdAt, now)}
      </p>
      ${basedOn(a.evidence, a.id)}
      ${controls(account, a, back, now)}
    </li>`,
  );
  return html`<ul class="action-list">${items}</ul>`;
}
