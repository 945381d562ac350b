/**
 * /suggestions (src/docs/notes/web-app.md): the agents' open suggestions, filtered by every agent
 * that writes them (links), each with what it is based on (linked) and the other agents that raised it; "Make it
 * an action" and "Dismiss…" (which opens an optional reason) are the same updateSuggestion operation as
 * PATCH /api/mcp/suggestions/{id}, so accepting twice is still one action.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import { type Evidence, SUGGESTION_AGENTS } from "../domain.ts";
import { ago, alertBox, csrfField, type Html, type PageAccount, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { emptyState, filterLinks, priorityBadge } from "../html/ui.ts";
import { agentName } from "../html/words.ts";
import { getSuggestionsOp } from "../operations/reports.ts";
import { type Suggestion, updateSuggestionOp } from "../operations/suggestions.ts";
import { actionNotice } from "./change-notice.ts";
import { backTo, handleForm, type PageRenderer, withDone } from "./form-flow.ts";
import { queryInput, runOperation } from "./run-operation.ts";

/** Who an outside input is from, in a few words: a mail's sender, a feed item's site, an event's or message's title. */
function outsideOf(e: Evidence): string {
  if (e.kind === "mail") return e.title.split(" — ").at(-1) ?? e.title;
  if (e.url) {
    try {
      return new URL(e.url).hostname;
    } catch {}
  }
  return e.title;
}

/**
 * "Based on: …" under an item a run wrote, each piece of evidence linked: a mail to Crew's own
 * view of it (src/web/cited-mail-page.ts) when the citing record's id is given, anything else to
 * its URL where it has one. An item resting on outside input says so first, "From outside:
 * {sender or site}" (src/docs/notes/prompt-injection.md#provenance).
 */
export function basedOn(evidence: readonly Evidence[], recordId?: string): Html | string {
  if (evidence.length === 0) return "";
  const items = evidence.map((e, i) => {
    const label = html`${e.title}`;
    const href = e.kind === "mail" && recordId ? `/evidence/mail?${new URLSearchParams({ record: recordId, ref: e.ref })}` : e.url;
    const linked = href ? html`<a href="${href}"${e.kind === "mail" ? "" : html` rel="noopener noreferrer"`}>${label}</a>` : label;
    return html`${i > 0 ? ", " : ""}<span class="evidence" title="${e.excerpt ?? ""}">${linked}</span>`;
  });
  const outside = [...new Set(evidence.filter((e) => e.trust === "external").map(outsideOf))];
  const from = outside.length ? html`<span class="from-outside">From outside: ${outside.join(", ")}.</span> ` : "";
  return html`<p class="small muted based-on">${from}Based on: ${items}</p>`;
}

/** The notices of the suggestion form, on whichever page it returns to (codes apart from the action queue's). */
export const SUGGESTION_CHANGED: Record<string, string> = {
  acted: "Added to the action queue.",
  suggestion_dismissed: "Dismissed: the agents will not suggest it again for 30 days.",
  suggestion_reopened: "Suggestion back among the open ones.",
};

/**
 * One open suggestion with what it is based on and its two controls, "Make it an action" and
 * "Dismiss…" (a disclosure with the optional reason and the Dismiss button): two small forms,
 * posted to /suggestions/act from every page that shows suggestions (here and the briefing),
 * which return to `back`. Two forms, so Enter in the reason field dismisses rather than accepts.
 */
export function suggestionItem(account: PageAccount, s: v.InferOutput<typeof Suggestion>, i: number, back: string, now: number): Html {
  const fields = html`${csrfField(account)}<input type="hidden" name="back" value="${back}"><input type="hidden" name="id" value="${s.id}">`;
  return html`<li class="suggestion" id="${s.id}" data-item tabindex="-1">
      <div class="action-head">${priorityBadge(s.priority)} <span class="action-title">${s.title}</span></div>
      <p class="action-desc">${s.detail}</p>
      ${basedOn(s.evidence, s.id)}
      <p class="small muted"><a href="/agents/${s.agent}">${agentName(s.agent)}</a>${
        s.alsoRaisedBy.length ? html` (also ${s.alsoRaisedBy.map(agentName).join(", ")})` : ""
      } · ${ago(Date.parse(s.createdAt), now)}</p>
      <div class="suggestion-controls">
        <form method="post" action="/suggestions/act" class="inline">
          ${fields}<input type="hidden" name="status" value="accepted">
          <button type="submit" class="btn btn-small" id="make-${i}" data-key="a">Make it an action<span class="sr-only">: “${s.title}”</span></button>
        </form>
        <details class="change">
          <summary class="btn btn-small btn-quiet">Dismiss…<span class="sr-only"> “${s.title}”</span></summary>
          <form method="post" action="/suggestions/act" class="change-box">
            ${fields}<input type="hidden" name="status" value="dismissed">
            <label for="reason-${i}">Why<span class="sr-only"> dismiss “${s.title}”</span> (optional)</label>
            <input type="text" name="reason" id="reason-${i}" maxlength="500">
            <button type="submit" class="btn btn-small btn-primary" id="dismiss-${i}" data-key="d">Dismiss<span class="sr-only">: “${s.title}”</span></button>
          </form>
        </details>
      </div>
    </li>`;
}

const renderSuggestions: PageRenderer = async (deps, c, found, state, status = 200) => {
  const account = accountOf(found);
  const input = queryInput(c, ["agent"]);
  const { suggestions } = await runOperation(deps, c, found, getSuggestionsOp, input);
  const now = deps.clock.now();
  const here = input.agent ? `/suggestions?agent=${input.agent}` : "/suggestions";
  const filters = filterLinks("Agent", [
    { href: "/suggestions", text: "All", current: !input.agent },
    ...SUGGESTION_AGENTS.map((a) => ({ href: `/suggestions?agent=${a}`, text: agentName(a), current: input.agent === a })),
  ]);
  const items = suggestions.map((s, i) => suggestionItem(account, s, i, here, now));
  const body = html`<h1>Suggestions</h1>
${actionNotice(account, c, SUGGESTION_CHANGED)}
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
};

export function suggestionsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/suggestions", session(deps), (c) => renderSuggestions(deps, c, c.var.session, null));
  router.post("/suggestions/act", (c) =>
    handleForm(deps, c, renderSuggestions, async (found, form) => {
      const sent = form.get("status");
      // "open" is the Undo of a dismissal (the operation's own way back).
      const status = sent === "dismissed" || sent === "open" ? sent : "accepted";
      const reason = form.get("reason")?.trim();
      const id = form.get("id") ?? "";
      await runOperation(deps, c, found, updateSuggestionOp, { id, status, ...(status === "dismissed" && reason ? { reason } : {}) });
      const back = backTo(form, "/suggestions");
      if (status === "dismissed") return withDone(back, "suggestion_dismissed", { undo: id, was: "open" });
      return withDone(back, status === "open" ? "suggestion_reopened" : "acted");
    }),
  );
  return router;
}
