/**
 * /actions (src/docs/notes/web-app.md): the action queue with the filters and pagination of src/docs/notes/rest-api.md as links, the
 * controls of each action, and one form to add an action. Reads and writes go through the
 * registry's operations (listActions, addActions, updateAction) with source "web".
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ACTION_LANES, ACTION_STATUSES, ACTION_TYPES, PRIORITIES } from "../domain.ts";
import { csrfField, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { boundFields, emptyState, filterLinks, formAlert, formPart, pager, withQuery } from "../html/ui.ts";
import { sourceFilterText, words } from "../html/words.ts";
import { addActionsOp, listActionsOp, NewAction, updateActionOp } from "../operations/actions.ts";
import { ACTION_CHANGED, actionChangeCode, actionList, laneText, SNOOZE_DAYS, statusText } from "./action-list.ts";
import { actionNotice, actionUndo } from "./change-notice.ts";
import { backTo, handleForm, type PageRenderer, withDone } from "./form-flow.ts";
import { formInput, queryInput, runOperation } from "./run-operation.ts";

const FILTERS = ["show", "status", "source", "type", "lane"] as const;
const DONE = { added: "Action added.", ...ACTION_CHANGED };
const SHOW_TEXT: Record<string, string> = { snoozed: "Snoozed", all: "All, done and dismissed too" };
const DAY = 24 * 60 * 60 * 1000;
const ADD_FIELDS = ["title", "description", "priority", "lane", "category"] as const;

/**
 * What the queue shows: open work by default (not done, dismissed or snoozed); `show=snoozed` the
 * snoozed ones; `show=all`, or any status filter, everything that matches.
 */
function viewOf(show: string | undefined, status: string | undefined): "open" | "snoozed" | undefined {
  if (show === "snoozed") return "snoozed";
  return show === "all" || status ? undefined : "open";
}

const renderActions: PageRenderer = async (deps, c, found, state, status = 200) => {
  const account = accountOf(found);
  const { show, ...query } = queryInput(c, [...FILTERS, "limit", "cursor"]);
  const view = viewOf(typeof show === "string" ? show : undefined, c.req.query("status"));
  const page = await runOperation(deps, c, found, listActionsOp, view ? { ...query, view } : query);
  const current: Record<string, string | undefined> = Object.fromEntries(FILTERS.map((f) => [f, c.req.query(f) || undefined]));
  if (query.limit) current.limit = String(query.limit);
  const here = withQuery("/actions", { ...current, cursor: c.req.query("cursor") || undefined }, {});
  const row = (name: (typeof FILTERS)[number], label: string, values: readonly string[], text: (v: string) => string = (v) => v) =>
    filterLinks(label, [
      { href: withQuery("/actions", current, { [name]: undefined }), text: "All", current: !current[name] },
      ...values.map((value) => ({
        href: withQuery("/actions", current, { [name]: value }),
        text: text(value),
        current: current[name] === value,
      })),
    ]);
  const filtered = FILTERS.some((f) => f !== "show" && current[f]);
  const add = formPart(state, "title");
  const fields = boundFields(NewAction, add, "new");
  const body = html`<h1>Actions</h1>
${actionNotice(account, c, DONE)}
${formAlert(state, add ? ADD_FIELDS : [], "The action was not added: correct the fields marked below.", { snoozedUntil: "Snooze" })}
<div class="grid-side">
  <section aria-labelledby="queue-h">
    <h2 id="queue-h">Queue</h2>
    <a class="jump btn btn-small" href="#add-h">Add an action</a>
    <details class="filter-block" open data-fold-narrow>
      <summary class="btn btn-small btn-quiet">Filters${filtered || current.show ? html` (${FILTERS.filter((f) => current[f]).length} on)` : ""}</summary>
      ${filterLinks("Show", [
        { href: withQuery("/actions", current, { show: undefined }), text: "Open", current: !current.show },
        ...["snoozed", "all"].map((value) => ({
          href: withQuery("/actions", current, { show: value }),
          text: SHOW_TEXT[value] ?? value,
          current: current.show === value,
        })),
      ])}
      ${row("status", "Status", ACTION_STATUSES, statusText)}
      ${row("lane", "Lane", ACTION_LANES, laneText)}
      ${row("type", "Type", ACTION_TYPES, words)}
      ${row("source", "Source", ["web", "api", "mcp"], sourceFilterText)}
    </details>
    ${
      page.actions.length
        ? actionList(account, page.actions, here, deps.clock.now())
        : emptyState(
            filtered ? "No action matches these filters." : current.show ? "Nothing here." : "The queue is empty.",
            filtered
              ? html`<a href="/actions">Show every action</a>`
              : "Add one with the form, or let the agents suggest some on /suggestions.",
          )
    }
    ${pager(withQuery("/actions", current, {}), page.nextCursor ? withQuery("/actions", current, { cursor: page.nextCursor }) : null, !c.req.query("cursor"))}
  </section>
  <section aria-labelledby="add-h" class="card">
    <h2 id="add-h">Add an action</h2>
    <form method="post" action="/actions" class="stack">
      ${csrfField(account)}
      ${fields.text("title", "Title")}
      ${fields.area("description", "Description (optional)")}
      ${fields.select("priority", "Priority", "medium", PRIORITIES)}
      ${fields.select("lane", "Lane", "", [["", "By priority"], ...ACTION_LANES.map((l) => [l, laneText(l)] as [string, string])])}
      ${fields.text("category", "Category (optional)", { hint: "e.g. sales, product, ops, fundraising" })}
      <button type="submit" class="btn btn-primary">Add action</button>
    </form>
  </section>
</div>`;
  return renderPage(c, { title: "Actions", body, account, active: "/actions" }, status);
};

export function actionsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/actions", session(deps), (c) => renderActions(deps, c, c.var.session, null));
  router.post("/actions", (c) =>
    handleForm(deps, c, renderActions, async (found, form) => {
      await runOperation(deps, c, found, addActionsOp, formInput(form, ADD_FIELDS));
      return withDone("/actions", "added");
    }),
  );
  router.post("/actions/:id", (c) =>
    handleForm(deps, c, renderActions, async (found, form) => {
      const fields = formInput(form, ["status", "priority", "lane"]);
      const snooze = form.get("snooze") ?? undefined;
      const days = snooze === undefined ? undefined : SNOOZE_DAYS[snooze];
      // A snooze from the form is a number of days from now; an unknown choice is handed on as is,
      // so the operation names the field.
      const snoozedUntil =
        snooze === undefined
          ? {}
          : { snoozedUntil: days === undefined ? snooze : days === 0 ? null : new Date(deps.clock.now() + days * DAY).toISOString() };
      await runOperation(deps, c, found, updateActionOp, { ...fields, ...snoozedUntil, id: c.req.param("id") });
      const code = actionChangeCode({ status: form.get("status") ?? undefined, snooze });
      return withDone(backTo(form, "/actions"), code, actionUndo(form, c.req.param("id")));
    }),
  );
  return router;
}
