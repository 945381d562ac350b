/**
 * /agents/{id} (src/docs/notes/web-app.md): the agent's runs (status, summary, error, tokens when reported), its
 * open suggestions, the handoffs queued for it, and its schedule; owners edit the schedule through
 * the same updateAgent operation as PATCH /api/agents/{id}.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { jobOf } from "../agents/jobs.ts";
import { missingByAgent } from "../agents/model-run.ts";
import { hasRunner } from "../agents/runners.ts";
import { isOwner } from "../auth/roles.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { AGENTS } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { ago, alertBox, csrfField, messagePage, NAV, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { doneNotice, emptyState, priorityBadge, textField } from "../html/ui.ts";
import { cronWords } from "../lib/cron-words.ts";
import { getAgentOp } from "../operations/agent-eval.ts";
import { resumeAgentOp } from "../operations/agent-pause.ts";
import { runAgentNowOp } from "../operations/agent-run-now.ts";
import { listAgentRunsOp, updateAgentOp } from "../operations/agent-runs.ts";
import { listHandoffsOp } from "../operations/listings.ts";
import { getSuggestionsOp } from "../operations/reports.ts";
import { agentTriggerRoutes, triggersSection } from "./agent-triggers.ts";
import { agentEvalCard } from "./eval-page.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { instructionsSection } from "./model-page.ts";
import { runOperation } from "./run-operation.ts";

/** Tokens in / out of a model-backed run (src/docs/notes/model.md), or null for runs without a model call. */
function tokensOf(run: { tokensIn: number | null; tokensOut: number | null }): string | null {
  return run.tokensIn === null ? null : `${run.tokensIn} / ${run.tokensOut ?? 0}`;
}

/** What the agent still lacks, in words, with a link to the settings page that provides it. */
function needsNotice(missing: string | undefined) {
  if (!missing) return "";
  const page = NAV.find((n) => n.group !== "work" && missing.includes(`Settings → ${n.label}`));
  return html`<div class="alert alert-info needs" role="status"><p><strong>Not ready to run by itself.</strong> ${missing}${
    page ? html` <a href="${page.href}">Open ${page.label} settings</a>` : ""
  }</p></div>`;
}

/** Why "Run now" did not start a run, as the page that says so; null for any other error. */
function runRefusal(error: unknown, id: string): { status: 404 | 409; title: string; message: string } | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === "not_found" || error.code === "not_run_by_crew") {
    return { status: 404, title: "No built-in runner", message: `The agent “${id}” runs through an external runner, not from this page.` };
  }
  if (error.code === "cannot_run_yet") return { status: 409, title: "Cannot run yet", message: error.message };
  return null;
}

const renderAgent: PageRenderer = async (deps, c, found, state, status = 200) => {
  const account = accountOf(found);
  const id = c.req.param("id") ?? "";
  const agent = AGENTS.find((a) => a.id === id);
  if (!agent) {
    return messagePage(c, 404, "No such agent", `There is no agent “${id}”.`, { href: "/dashboard", label: "See the 17 agents" }, account);
  }
  const now = deps.clock.now();
  const [{ runs }, { suggestions }, { handoffs }, view, missing] = await Promise.all([
    runOperation(deps, c, found, listAgentRunsOp, { id, limit: 20 }),
    runOperation(deps, c, found, getSuggestionsOp, {}),
    runOperation(deps, c, found, listHandoffsOp, { status: "queued", to: id }),
    runOperation(deps, c, found, getAgentOp, { id }),
    missingByAgent(deps, found.user.orgId),
  ]);
  const { schedule, pausedReason, dailyTokens: cap } = view;
  const mine = suggestions.filter((s) => s.agent === id);
  const owner = isOwner(found.user);
  const errors = state?.errors ?? {};
  const runRows = runs.map(
    (r) => html`<tr id="run-${r.id}">
      <th scope="row" data-label="Started">${ago(r.startedAt, now)}</th>
      <td data-label="Status"><span class="badge badge-${r.status === "ok" ? "green" : r.status === "error" ? "error" : "stale"}">${r.status}</span></td>
      <td data-label="Summary" class="summary">${r.summary || html`<span class="muted">—</span>`}${r.error ? html`<p class="field-error">${r.error}</p>` : ""}</td>
      <td data-label="Tokens">${tokensOf(r) ?? html`<span class="muted">—</span>`}</td>
    </tr>`,
  );
  const body = html`<h1>${agent.name} <span class="muted small">${agent.id} · ${agent.category}</span></h1>
${
  pausedReason
    ? html`<div class="alert alert-error paused" role="alert"><p><strong>Paused.</strong> ${pausedReason}</p>${
        owner
          ? html`<form method="post" action="/agents/${id}/resume" class="inline">${csrfField(account)}<button type="submit" class="btn">Resume</button></form>`
          : ""
      }</div>`
    : ""
}
${alertBox("success", doneNotice({ capped: "Daily token cap saved.", resumed: "Resumed: it runs again from its next scheduled slot.", scheduled: "Schedule saved.", ran: "Run finished: see the newest run below.", instructions: "Instructions saved.", reset: "Back to the default instructions." }, c.req.query("done")))}
<p class="lead">${jobOf(id).job}</p>
${needsNotice(missing.get(id))}
${
  owner && (hasRunner(id) || jobOf(id).runner === "model")
    ? html`<form method="post" action="/agents/${id}/run" class="inline run-now">${csrfField(account)}<button type="submit" class="btn btn-primary">Run now</button></form>`
    : ""
}
<section aria-labelledby="runs-h" class="section">
  <h2 id="runs-h">Runs</h2>
  ${
    runs.length
      ? html`<div class="table-wrap"><table class="table stack"><caption class="sr-only">Latest runs of ${agent.name}</caption>
    <thead><tr><th scope="col">Started</th><th scope="col">Status</th><th scope="col">Summary</th><th scope="col">Tokens</th></tr></thead>
    <tbody>${runRows}</tbody></table></div>`
      : emptyState(
          "This agent has not run yet.",
          schedule
            ? `It runs ${cronWords(schedule)} once it has what it needs.`
            : "It runs when an external runner acts for it through the agent-run API.",
        )
  }
</section>
<div class="grid-2">
  <section class="card" aria-labelledby="sugg-h">
    <h2 id="sugg-h">Open suggestions</h2>
    ${mine.length ? html`<ul class="plain-list">${mine.map((s) => html`<li>${priorityBadge(s.priority)} ${s.title}</li>`)}</ul>` : html`<p class="muted">None open.</p>`}
  </section>
  <section class="card" aria-labelledby="hof-h">
    <h2 id="hof-h">Queued handoffs</h2>
    ${handoffs.length ? html`<ul class="plain-list">${handoffs.map((h) => html`<li>${priorityBadge(h.priority)} ${h.title} <span class="muted small">from ${h.from}</span></li>`)}</ul>` : html`<p class="muted">Nothing queued.</p>`}
  </section>
</div>
${jobOf(id).runner === "model" ? agentEvalCard(view.eval, now) : ""}
${instructionsSection(found, view)}
${triggersSection(found, view)}
<section class="card" aria-labelledby="sched-h">
  <h2 id="sched-h">Schedule</h2>
  <p>${schedule ? `Runs ${cronWords(schedule)}, in your organization's time zone.` : "No schedule."}</p>
  ${
    owner
      ? html`<form method="post" action="/agents/${id}/schedule" class="stack narrow-form">
    ${csrfField(account)}
    ${textField("schedule", "schedule", {
      label: "Schedule (cron: minute hour day month weekday; empty for none)",
      value: state?.values.schedule ?? schedule ?? "",
      error: errors.schedule,
      maxlength: 100,
    })}
    <button type="submit" class="btn btn-primary">Save schedule</button>
  </form>`
      : html`<p class="small muted">Owners can change it.</p>`
  }
</section>
${
  jobOf(id).runner === "model"
    ? html`<section class="card" aria-labelledby="cap-h">
  <h2 id="cap-h">Daily token cap</h2>
  <p>${cap === null ? "None: only the organization's daily budget applies." : html`<strong>${cap.toLocaleString("en-US")}</strong> tokens a day (UTC), beside the organization's budget.`}</p>
  ${
    owner
      ? html`<form method="post" action="/agents/${id}/cap" class="stack narrow-form">
    ${csrfField(account)}
    ${textField("dailyTokens", "dailyTokens", {
      label: "Tokens a day (empty for no cap of its own)",
      value: state?.values.dailyTokens ?? (cap === null ? "" : String(cap)),
      error: errors.dailyTokens,
      maxlength: 12,
    })}
    <button type="submit" class="btn btn-primary">Save cap</button>
  </form>`
      : html`<p class="small muted">Owners can change it.</p>`
  }
</section>`
    : ""
}`;
  return renderPage(c, { title: agent.name, body, account, active: "/dashboard" }, status);
};

export function agentPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/agents/:id", session(deps), (c) => renderAgent(deps, c, c.var.session, null));
  router.route("/", agentTriggerRoutes(deps, renderAgent));
  router.post("/agents/:id/schedule", (c) =>
    handleForm(deps, c, renderAgent, async (found, form) => {
      const id = c.req.param("id");
      const schedule = form.get("schedule")?.trim() || null;
      await runOperation(deps, c, found, updateAgentOp, { id, schedule });
      return `/agents/${id}?done=scheduled`;
    }),
  );
  router.post("/agents/:id/cap", (c) =>
    handleForm(deps, c, renderAgent, async (found, form) => {
      const id = c.req.param("id");
      const raw = form.get("dailyTokens")?.trim() ?? "";
      const dailyTokens = raw === "" ? null : /^\d+$/.test(raw) ? Number(raw) : raw;
      await runOperation(deps, c, found, updateAgentOp, { id, dailyTokens });
      return `/agents/${id}?done=capped`;
    }),
  );
  router.post("/agents/:id/resume", (c) =>
    handleForm(deps, c, renderAgent, async (found) => {
      const id = c.req.param("id");
      await runOperation(deps, c, found, resumeAgentOp, { id });
      return `/agents/${id}?done=resumed`;
    }),
  );
  // Owners start a built-in runner at once (src/docs/notes/web-app.md), the same operation as MCP's crew_run_agent; agents run by external runners are started through the run API.
  router.post("/agents/:id/run", (c) =>
    handleForm(deps, c, renderAgent, async (found) => {
      const id = c.req.param("id");
      try {
        await runOperation(deps, c, found, runAgentNowOp, { agent: id });
      } catch (error) {
        const refusal = runRefusal(error, id);
        if (!refusal) throw error;
        const back = { href: `/agents/${id}`, label: "Back to the agent" };
        return messagePage(c, refusal.status, refusal.title, refusal.message, back, accountOf(found));
      }
      return `/agents/${id}?done=ran`;
    }),
  );
  return router;
}
