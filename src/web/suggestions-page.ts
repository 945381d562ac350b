/**
 * /suggestions (SPEC §12): the agents' open suggestions, filtered by the nine agents of §5 (links),
 * and "make it an action": the same addActions operation as REST, source "web", with the
 * suggestion's agent named in the description.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { AGENTS, SUGGESTION_AGENTS } from "../domain.ts";
import { addActions } from "../operations/actions.ts";
import { getSuggestions } from "../operations/reports.ts";
import { backTo, type FormState, handleForm, withDone } from "./form-flow.ts";
import { ago, alertBox, csrfField, renderPage } from "./layout.ts";
import { accountOf, withSession } from "./pages.ts";
import { queryInput, runOperation } from "./run-operation.ts";
import { doneNotice, emptyState, filterLinks, priorityBadge } from "./ui.ts";

const agentName = (id: string) => AGENTS.find((a) => a.id === id)?.name ?? id;

/** The action a suggestion becomes: its title and priority; its agent and detail in the description. */
export function suggestionAsAction(s: { agent: string; title: string; detail: string; priority: string }) {
  const description = `Suggested by the ${agentName(s.agent)} agent (${s.agent}).${s.detail ? `\n\n${s.detail}` : ""}`;
  return { title: s.title, priority: s.priority, description: description.slice(0, 5000) };
}

async function renderSuggestions(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  state: FormState | null,
  status = 200,
): Promise<Response> {
  const account = accountOf(found);
  const input = queryInput(c, ["agent"]);
  const { suggestions } = await runOperation(deps, c, found, getSuggestions, input);
  const now = deps.clock.now();
  const here = input.agent ? `/suggestions?agent=${input.agent}` : "/suggestions";
  const filters = filterLinks("Agent", [
    { href: "/suggestions", text: "All", current: !input.agent },
    ...SUGGESTION_AGENTS.map((a) => ({ href: `/suggestions?agent=${a}`, text: agentName(a), current: input.agent === a })),
  ]);
  const items = suggestions.map(
    (s, i) => html`<li class="suggestion">
      <div class="action-head">${priorityBadge(s.priority)} <span class="action-title">${s.title}</span></div>
      <p class="action-desc">${s.detail}</p>
      <p class="small muted"><a href="/agents/${s.agent}">${agentName(s.agent)}</a> · ${ago(s.createdAt, now)}</p>
      <form method="post" action="/suggestions/act">
        ${csrfField(account)}
        <input type="hidden" name="back" value="${here}">
        <input type="hidden" name="agent" value="${s.agent}">
        <input type="hidden" name="title" value="${s.title}">
        <input type="hidden" name="detail" value="${s.detail}">
        <input type="hidden" name="priority" value="${s.priority}">
        <button type="submit" class="btn btn-small" id="make-${i}">Make it an action<span class="sr-only">: “${s.title}”</span></button>
      </form>
    </li>`,
  );
  const body = html`<h1>Suggestions</h1>
${alertBox("success", doneNotice({ acted: "Added to the action queue." }, c.req.query("done")))}
${alertBox("error", state ? Object.values(state.errors).join(" ") : null)}
${filters}
${
  suggestions.length
    ? html`<ul class="action-list">${items}</ul>`
    : emptyState(
        input.agent ? `${agentName(String(input.agent))} has no open suggestion.` : "The agents have no open suggestion yet.",
        html`They make them when they run; see their health on the <a href="/dashboard">dashboard</a>.`,
      )
}`;
  return renderPage(c, { title: "Suggestions", body, account, active: "/suggestions" }, status);
}

export function suggestionsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get(
    "/suggestions",
    withSession(deps, (c, found) => renderSuggestions(deps, c, found, null)),
  );
  router.post("/suggestions/act", (c) =>
    handleForm(deps, c, renderSuggestions, async (found, form) => {
      const suggestion = {
        agent: form.get("agent") ?? "",
        title: form.get("title") ?? "",
        detail: form.get("detail") ?? "",
        priority: form.get("priority") ?? "",
      };
      await runOperation(deps, c, found, addActions, suggestionAsAction(suggestion));
      return withDone(backTo(form, "/suggestions"), "acted");
    }),
  );
  return router;
}
