/**
 * The reading pages (src/docs/notes/web-app.md): /briefing (the caller's briefing, then the pending actions with
 * their controls), /standup (morning, evening, latest as tabs), /profile (the company profile and
 * the pipeline by stage with totals). Each reads through the same operation as REST and MCP.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { PIPELINE_STAGES } from "../domain.ts";
import { ago, type Html, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { emptyState, filterLinks, priorityBadge } from "../html/ui.ts";
import { agentName, healthText, words } from "../html/words.ts";
import { listActionsOp } from "../operations/actions.ts";
import { getBriefingOp, getCompanyProfileOp, getStandupOp, getSuggestionsOp } from "../operations/reports.ts";
import { ACTION_CHANGED, actionList } from "./action-list.ts";
import { actionNotice } from "./change-notice.ts";
import { runOperation, runOptional } from "./run-operation.ts";
import { SUGGESTION_CHANGED, suggestionItem } from "./suggestions-page.ts";

/** Recommendations shown in the briefing: as many as the briefing agent recommends (src/agents/compose-briefing.ts). */
const RECOMMENDED = 10;

/** Briefing and standup texts are plain text with line breaks: paragraphs, no markup from the text. */
function prose(text: string): Html {
  const paragraphs = text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean);
  return html`<div class="prose">${paragraphs.map((p) => html`<p>${p.split("\n").map((line, i) => (i ? html`<br>${line}` : line))}</p>`)}</div>`;
}

const money = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`;

async function briefingPage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession): Promise<Response> {
  const account = accountOf(found);
  const now = deps.clock.now();
  const [b, pending, open] = await Promise.all([
    runOperation(deps, c, found, getBriefingOp, {}),
    runOperation(deps, c, found, listActionsOp, { status: "pending", limit: 50 }),
    runOperation(deps, c, found, getSuggestionsOp, {}),
  ]);
  // The recommendations are the open suggestions, as the briefing composes them (its first 10), live:
  // each with the same controls as on /suggestions, so one dismissed here leaves at once.
  const recommendations = open.suggestions.slice(0, RECOMMENDED);
  const body = html`<h1>Your briefing</h1>
${actionNotice(account, c, { ...ACTION_CHANGED, ...SUGGESTION_CHANGED })}
<p class="lead">Made ${ago(b.generatedAt, now)} for ${found.user.name}.</p>
<section class="card" aria-labelledby="text-h">
  <h2 id="text-h">Briefing</h2>
  ${prose(b.briefing)}
</section>
<div class="grid-2">
  <section class="card" aria-labelledby="rec-h">
    <h2 id="rec-h">Recommendations</h2>
    ${
      recommendations.length
        ? html`<ol class="action-list numbered">${recommendations.map((r, i) => suggestionItem(account, r, i, "/briefing", now))}</ol>
    ${open.suggestions.length > RECOMMENDED ? html`<p><a href="/suggestions">All suggestions</a></p>` : ""}`
        : emptyState("No open suggestions.", html`See what the agents found on <a href="/suggestions">Suggestions</a>.`)
    }
  </section>
  <section class="card" aria-labelledby="summary-h">
    <h2 id="summary-h">Awaiting you, as briefed</h2>
    ${
      b.pendingActions.length
        ? html`<ul class="plain-list">${b.pendingActions.map((a) => html`<li>${priorityBadge(a.priority)} ${a.title} <span class="muted small">from ${a.source}</span></li>`)}</ul>`
        : emptyState("Nothing was pending when this briefing was made.")
    }
  </section>
</div>
<section aria-labelledby="pending-h" class="section">
  <h2 id="pending-h">Pending actions now</h2>
  ${
    pending.actions.length
      ? actionList(account, pending.actions, "/briefing", now)
      : emptyState("No action is pending.", html`Add one on <a href="/actions">Actions</a>.`)
  }
  ${pending.nextCursor ? html`<p><a href="/actions?status=pending">All pending actions</a></p>` : ""}
</section>`;
  return renderPage(c, { title: "Briefing", body, account, active: "/briefing" });
}

const MODES = ["latest", "morning", "evening"] as const;

async function standupPage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession): Promise<Response> {
  const mode = c.req.query("mode") || "latest";
  const s = await runOptional(deps, c, found, getStandupOp, { mode });
  const now = deps.clock.now();
  const tabs = filterLinks(
    "Snapshot",
    MODES.map((m) => ({
      href: m === "latest" ? "/standup" : `/standup?mode=${m}`,
      text: m[0]?.toUpperCase() + m.slice(1),
      current: m === mode,
    })),
  );
  const content = s
    ? html`<p class="lead">${s.mode === "morning" ? "Morning" : "Evening"} standup, made ${ago(s.generatedAt, now)}.</p>
<section class="card" aria-labelledby="brief-h"><h2 id="brief-h">Summary</h2>${prose(s.briefing)}</section>
<section aria-labelledby="metrics-h" class="section">
  <h2 id="metrics-h">Metrics</h2>
  <ul class="stats stats-3">
    <li class="stat"><span class="stat-value">${s.metrics.dau.toLocaleString("en-US")}</span> <span class="stat-label">Daily active users</span></li>
    <li class="stat"><span class="stat-value">${s.metrics.wau.toLocaleString("en-US")}</span> <span class="stat-label">Weekly active users</span></li>
    <li class="stat"><span class="stat-value">${money(s.metrics.mrr)}</span> <span class="stat-label">Monthly recurring revenue</span></li>
  </ul>
</section>
<div class="grid-2">
  <section class="card" aria-labelledby="int-h">
    <h2 id="int-h">Interventions</h2>
    ${
      s.interventions.length
        ? html`<ul class="plain-list">${s.interventions.map((i) => html`<li>${priorityBadge(i.priority)} ${i.title} <span class="muted small">${agentName(i.agent)}</span></li>`)}</ul>`
        : emptyState("Nothing needs a person right now.")
    }
  </section>
  <section class="card" aria-labelledby="roll-h">
    <h2 id="roll-h">Agents</h2>
    <ul class="plain-list">${s.agentStatuses.map((a) => html`<li><strong>${a.name}</strong> <span class="badge badge-${a.status}">${healthText(a.status)}</span><br><span class="small">${a.headline}</span></li>`)}</ul>
  </section>
</div>`
    : emptyState(
        mode === "latest"
          ? "No standup has been made yet: the standup agent makes one at 08:00 and 18:00 in your organization's time zone, and again soon after an important write."
          : `No ${mode} standup has been made yet: the standup agent makes it at ${mode === "morning" ? "08:00" : "18:00"}.`,
        html`Meanwhile, see <a href="/dashboard">agent health</a> or <a href="/actions">the action queue</a>.`,
      );
  const body = html`<h1>Standup</h1>${tabs}${content}`;
  return renderPage(c, { title: "Standup", body, account: accountOf(found), active: "/standup" });
}

async function profilePage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession): Promise<Response> {
  const p = await runOperation(deps, c, found, getCompanyProfileOp, {});
  const now = deps.clock.now();
  const stages = PIPELINE_STAGES.map((stage) => {
    const deals = p.pipeline.filter((d) => d.stage === stage);
    return { stage, deals, total: deals.reduce((sum, d) => sum + d.value, 0) };
  });
  const grand = stages.reduce((sum, s) => sum + s.total, 0);
  const list = (items: string[], empty: string) =>
    items.length ? html`<ul class="plain-list">${items.map((i) => html`<li>${i}</li>`)}</ul>` : html`<p class="muted">${empty}</p>`;
  const body = html`<h1>Company profile</h1>
${
  p.generatedAt
    ? html`<p class="lead">Written by the Company DNA agent ${ago(p.generatedAt, now)}. Archetype: <strong class="archetype">${p.archetype}</strong></p>`
    : emptyState(
        "The Company DNA agent has not written a profile yet: it does once it has run (hourly, with a model connected).",
        html`See its runs on <a href="/agents/dna">the agent's page</a>.`,
      )
}
<div class="grid-2">
  <section class="card" aria-labelledby="str-h"><h2 id="str-h">Strengths</h2>${list(p.strengths, "None recorded yet.")}</section>
  <section class="card" aria-labelledby="weak-h"><h2 id="weak-h">Weaknesses</h2>${list(p.weaknesses, "None recorded yet.")}</section>
</div>
<section class="card" aria-labelledby="pat-h">
  <h2 id="pat-h">Patterns</h2>
  ${p.patterns.length ? html`<dl class="facts wide">${p.patterns.map((pt) => html`<dt>${pt.name}</dt><dd>${pt.insight}</dd>`)}</dl>` : html`<p class="muted">None recorded yet.</p>`}
</section>
<section aria-labelledby="pipe-h" class="section">
  <h2 id="pipe-h">Pipeline</h2>
  <div class="table-wrap"><table class="table stack pipeline">
    <caption class="sr-only">Deals by stage with totals</caption>
    <thead><tr><th scope="col">Stage</th><th scope="col">Deals</th><th scope="col" class="num">Total</th></tr></thead>
    <tbody>${stages.map(
      (s) => html`<tr data-stage="${s.stage}">
        <th scope="row" data-label="Stage">${words(s.stage)}</th>
        <td data-label="Deals">${s.deals.length ? s.deals.map((d, i) => html`${i ? ", " : ""}${d.company} (${money(d.value)})`) : html`<span class="muted">none</span>`}</td>
        <td data-label="Total" class="num stage-total">${money(s.total)}</td>
      </tr>`,
    )}</tbody>
    <tfoot><tr><th scope="row" data-label="Stage">All stages</th><td data-label="Deals">${p.pipeline.length} deals</td><td data-label="Total" class="num pipeline-total">${money(grand)}</td></tr></tfoot>
  </table></div>
</section>`;
  return renderPage(c, { title: "Company profile", body, account: accountOf(found), active: "/profile" });
}

export function reportPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/briefing", session(deps), (c) => briefingPage(deps, c, c.var.session));
  router.get("/standup", session(deps), (c) => standupPage(deps, c, c.var.session));
  router.get("/profile", session(deps), (c) => profilePage(deps, c, c.var.session));
  return router;
}
