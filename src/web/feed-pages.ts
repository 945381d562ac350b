/**
 * /feed and /handoffs (src/docs/notes/web-app.md): the insight feed newest first (high impact marked) with a form
 * to post one, and handoffs by status (queued, done, failed) with a form to create one. Writes go
 * through postInsight and createHandoff, so they raise the same events as over REST.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppDeps, AppEnv } from "../deps.ts";
import { AGENTS, INSIGHT_TYPES, PRIORITIES } from "../domain.ts";
import { ago, alertBox, csrfField, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { boundFields, doneNotice, emptyState, filterLinks, formAlert, pager, priorityBadge } from "../html/ui.ts";
import { agentName, sourceText, words } from "../html/words.ts";
import { HANDOFF_VIEWS, listFeedOp, listHandoffsOp } from "../operations/listings.ts";
import { createHandoffOp, postInsightOp } from "../operations/writes.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { formInput, queryInput, runOperation } from "./run-operation.ts";
import { basedOn } from "./suggestions-page.ts";

const agentChoices = AGENTS.map((a) => [a.id, a.name] as [string, string]);
const INSIGHT_FIELDS = ["title", "detail", "type", "impact"] as const;
const HANDOFF_FIELDS = ["title", "to", "from", "priority", "type", "context"] as const;

const renderFeed: PageRenderer = async (deps, c, found, state, status = 200) => {
  const account = accountOf(found);
  const input = queryInput(c, ["cursor"]);
  const page = await runOperation(deps, c, found, listFeedOp, input);
  const now = deps.clock.now();
  const fields = boundFields(postInsightOp.input, state, "in");
  const items = page.insights.map(
    (i) => html`<li class="insight${i.impact === "high" ? " insight-high" : ""}" id="${i.id}" data-item tabindex="-1">
      <div class="action-head">${i.impact === "high" ? html`<span class="badge badge-p-high">high impact</span>` : html`<span class="badge">${i.impact}</span>`}
        <span class="action-title">${i.title}</span></div>
      ${i.detail ? html`<p class="action-desc">${i.detail}</p>` : ""}
      <p class="small muted">${words(i.type)} · ${i.agent === "manual" ? "posted by a person" : html`<a href="/agents/${i.agent}">${agentName(i.agent)}</a>`} · ${ago(i.createdAt, now)}</p>
      ${basedOn(i.evidence, i.id)}
    </li>`,
  );
  const body = html`<h1>Feed</h1>
${alertBox("success", doneNotice({ posted: "Insight posted: every agent reads it on its next run." }, c.req.query("done")))}
${formAlert(state, INSIGHT_FIELDS, "The insight was not posted: correct the fields marked below.")}
<div class="grid-side">
  <section aria-labelledby="feed-h">
    <h2 id="feed-h">Insights, newest first</h2>
    <a class="jump btn btn-small" href="#post-h">Post an insight</a>
    ${page.insights.length ? html`<ul class="action-list">${items}</ul>` : emptyState("No insights yet.", "Post what you learned with the form; agents post theirs when they run.")}
    ${pager("/feed", page.nextCursor ? `/feed?cursor=${page.nextCursor}` : null, !input.cursor)}
  </section>
  <section aria-labelledby="post-h" class="card">
    <h2 id="post-h">Post an insight</h2>
    <form method="post" action="/feed" class="stack">
      ${csrfField(account)}
      ${fields.text("title", "Title")}
      ${fields.area("detail", "Detail (optional)")}
      ${fields.select("type", "Type", "insight", INSIGHT_TYPES)}
      ${fields.select("impact", "Impact", "medium")}
      <button type="submit" class="btn btn-primary">Post insight</button>
    </form>
  </section>
</div>`;
  return renderPage(c, { title: "Feed", body, account, active: "/feed" }, status);
};

const renderHandoffs: PageRenderer = async (deps, c, found, state, status = 200) => {
  const account = accountOf(found);
  const input = queryInput(c, ["status"]);
  const { handoffs } = await runOperation(deps, c, found, listHandoffsOp, input);
  const current = String(input.status ?? "queued");
  const now = deps.clock.now();
  const fields = boundFields(createHandoffOp.input, state, "hf");
  const tabs = filterLinks(
    "Status",
    HANDOFF_VIEWS.map((s) => ({
      href: s === "queued" ? "/handoffs" : `/handoffs?status=${s}`,
      text: s[0]?.toUpperCase() + s.slice(1),
      current: s === current,
    })),
  );
  const items = handoffs.map(
    (h) => html`<li class="handoff" id="${h.id}" data-item tabindex="-1">
      <div class="action-head">${priorityBadge(h.priority)} <span class="action-title">${h.title}</span></div>
      ${h.context ? html`<p class="action-desc">${h.context}</p>` : ""}
      <p class="small muted">From ${sourceText(h.from)} to <a href="/agents/${h.to}">${agentName(h.to)}</a>${h.type ? html` · kind of work: ${words(h.type)}` : ""} · ${words(h.status)} · ${ago(h.createdAt, now)}</p>
      ${basedOn(h.evidence, h.id)}
    </li>`,
  );
  const body = html`<h1>Handoffs</h1>
${alertBox("success", doneNotice({ created: "Handoff queued: the agent receives it on its next run (a critical one starts it now)." }, c.req.query("done")))}
${formAlert(state, HANDOFF_FIELDS, "The handoff was not queued: correct the fields marked below.")}
<div class="grid-side">
  <section aria-labelledby="list-h">
    <h2 id="list-h">Between agents</h2>
    <a class="jump btn btn-small" href="#new-h">Create a handoff</a>
    ${tabs}
    ${
      handoffs.length
        ? html`<ul class="action-list">${items}</ul>`
        : emptyState(
            current === "queued" ? "Nothing is queued." : `No ${current} handoff.`,
            "Hand work to an agent with the form; agents hand work to each other when they run.",
          )
    }
  </section>
  <section aria-labelledby="new-h" class="card">
    <h2 id="new-h">Create a handoff</h2>
    <form method="post" action="/handoffs" class="stack">
      ${csrfField(account)}
      ${fields.text("title", "Title")}
      ${fields.select("to", "To agent", "research", agentChoices)}
      ${fields.select("from", "From", "manual", [["manual", "Me (manual)"], ...agentChoices])}
      ${fields.select("priority", "Priority", "medium", PRIORITIES)}
      ${fields.text("type", "Kind of work (optional)", { hint: "e.g. draft, review, look into" })}
      ${fields.area("context", "Context (optional)")}
      <button type="submit" class="btn btn-primary">Create handoff</button>
    </form>
  </section>
</div>`;
  return renderPage(c, { title: "Handoffs", body, account, active: "/handoffs" }, status);
};

export function feedPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/feed", session(deps), (c) => renderFeed(deps, c, c.var.session, null));
  router.post("/feed", (c) =>
    handleForm(deps, c, renderFeed, async (found, form) => {
      await runOperation(deps, c, found, postInsightOp, formInput(form, INSIGHT_FIELDS));
      return "/feed?done=posted";
    }),
  );
  router.get("/handoffs", session(deps), (c) => renderHandoffs(deps, c, c.var.session, null));
  router.post("/handoffs", (c) =>
    handleForm(deps, c, renderHandoffs, async (found, form) => {
      await runOperation(deps, c, found, createHandoffOp, formInput(form, HANDOFF_FIELDS));
      return "/handoffs?done=created";
    }),
  );
  return router;
}
