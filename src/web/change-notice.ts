/**
 * The notice after a change made from a list (src/docs/notes/web-app.md#the-keyboard), with its
 * Undo: an action's change (/actions/{id}) or a suggestion's dismissal (/suggestions/act)
 * redirects back with `undo` and `was`, and the page's notice offers the reverse change.
 */
import type { Context } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../deps.ts";
import { ACTION_STATUSES } from "../domain.ts";
import { alertBox, csrfField, type Html, type PageAccount } from "../html/layout.ts";
import { doneNotice } from "../html/ui.ts";

const UNDOABLE = new Set<string>([...ACTION_STATUSES, "snoozed"]);

/**
 * Where an Undo of the change just made is possible: `undo` (the action) and `was` (its status
 * before, or "snoozed" for a snooze) in the URL the change redirected to (actionUndo).
 */
export function actionUndo(form: URLSearchParams, id: string): Record<string, string> {
  const was = form.has("snooze") ? (form.get("snooze") === "0" ? "" : "snoozed") : (form.get("was") ?? "");
  return UNDOABLE.has(was) && form.has("status") !== form.has("snooze") ? { undo: id, was } : {};
}

/**
 * The notice after a change of an action or a suggestion's dismissal, with an Undo button that
 * puts back what was (the status before, awake for a snooze, open for a suggestion): the undo of
 * the keyboard's e, d and s (crew.js), and of the buttons. One small form posting the reverse
 * change, so it works without JavaScript.
 */
export function actionNotice(account: PageAccount, c: Context<AppEnv>, messages: Record<string, string>): Html | string {
  const message = doneNotice(messages, c.req.query("done"));
  if (!message) return "";
  const id = c.req.query("undo") ?? "";
  const was = c.req.query("was") ?? "";
  // An action goes back to its status (or awake); a dismissed suggestion back to open (/suggestions/act).
  const action = /^act_\w+$/.test(id) && UNDOABLE.has(was);
  const suggestion = /^sug_\w+$/.test(id) && was === "open";
  if (!action && !suggestion) return alertBox("success", message);
  const url = new URL(c.req.url);
  for (const name of ["done", "undo", "was"]) url.searchParams.delete(name);
  const target = suggestion ? "/suggestions/act" : `/actions/${id}`;
  const reverse = suggestion
    ? html`<input type="hidden" name="id" value="${id}"><input type="hidden" name="status" value="open">`
    : was === "snoozed"
      ? html`<input type="hidden" name="snooze" value="0">`
      : html`<input type="hidden" name="status" value="${was}">`;
  // The message is the announced part (role=status); the Undo button follows it in the same box.
  return html`<div class="alert alert-success"><span role="status">${message}</span> <form method="post" action="${target}" class="inline undo-form">${csrfField(account)}<input type="hidden" name="back" value="${url.pathname + url.search}">${reverse}<button type="submit" class="btn btn-small" data-undo>Undo</button></form></div>`;
}
