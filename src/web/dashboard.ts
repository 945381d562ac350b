/**
 * The signed-in dashboard (src/docs/notes/web-app.md): today's briefing headline, the top open critical/high
 * actions, the latest standup's interventions, agent health and alerts (the same operations as
 * REST), and while the organization has no content yet, getting started.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { allowedKeyScopes } from "../domain.ts";
import { ago, alertBox, type Html, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { doneNotice, emptyState, priorityBadge } from "../html/ui.ts";
import { agentName, healthText } from "../html/words.ts";
import { listActionsOp } from "../operations/actions.ts";
import { type AgentDashboard, getAgentsOp } from "../operations/agents.ts";
import { getOwnContentOp, loadDemoDataOp } from "../operations/demo-data.ts";
import { listHeldOp } from "../operations/held.ts";
import { getBriefingOp, getStandupOp } from "../operations/reports.ts";
import { handleForm } from "./form-flow.ts";
import { gettingStarted } from "./getting-started.ts";
import { heldRoutes, heldSection } from "./held-section.ts";
import { runOperation, runOptional } from "./run-operation.ts";

/** Like `ago()`: minutes, then hours, then days (the API gives hours; "74.0 h ago" reads badly). */
function hoursText(hours: number | null): Html | string {
  if (hours === null) return html`<span class="muted">never</span>`;
  if (hours < 1) return `${Math.round(hours * 60)} min ago`;
  if (hours < 48) return `${hours.toFixed(1)} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

function summaryCards(d: AgentDashboard): Html {
  const card = (label: string, value: number, kind: string) =>
    html`<li class="stat stat-${kind}"><span class="stat-value">${value}</span> <span class="stat-label">${label}</span></li>`;
  return html`<ul class="stats" aria-label="Agent health summary">
    ${card("Agents", d.total, "total")}${card("Healthy", d.healthy, "green")}${card("Stale", d.stale, "stale")}${card("Failing", d.errors, "error")}${card("Never ran", d.neverRan, "never_ran")}
  </ul>`;
}

function agentTable(d: AgentDashboard): Html {
  const rows = d.agents.map(
    (a) => html`<tr>
      <th scope="row" data-label="Agent"><a class="agent-name" href="/agents/${a.id}">${a.name}</a></th>
      <td data-label="Category" class="optional">${a.category}</td>
      <td data-label="Health"><span class="badge badge-${a.health}">${healthText(a.health)}</span></td>
      <td data-label="Last run" class="nowrap">${hoursText(a.hoursAgo)}</td>
      <td data-label="Summary" class="summary">${a.summary || html`<span class="muted">No output yet</span>`}</td>
    </tr>`,
  );
  return html`<div class="table-wrap"><table class="table stack">
    <caption class="sr-only">Health of the ${d.total} agents</caption>
    <thead><tr><th scope="col">Agent</th><th scope="col">Category</th><th scope="col">Health</th><th scope="col">Last run</th><th scope="col">Summary</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

function alertList(d: AgentDashboard, now: number): Html {
  if (d.integrationAlerts.length === 0) return html`<p class="muted">No open integration alerts.</p>`;
  const items = d.integrationAlerts.map(
    (a) => html`<li class="alert-item">
      <span class="badge badge-${a.severity === "critical" ? "error" : "stale"}">${a.severity}</span>
      <strong>${a.service}</strong> <span class="muted small">${ago(a.flaggedAt, now)}</span>
      <p>${a.message}</p>
    </li>`,
  );
  return html`<ul class="alert-list">${items}</ul>`;
}

/** The briefing's headline: the first three sentences of its first line (greeting, date, what is critical). */
function headlineOf(text: string): string {
  const first = text.split("\n").find((line) => line.trim()) ?? "";
  const sentences = first.trim().split(/(?<=[.!?])\s+/);
  return sentences.length > 3 ? `${sentences.slice(0, 3).join(" ")} …` : first.trim();
}

async function renderDashboard(deps: AppDeps, c: Context<AppEnv>, found: ValidSession): Promise<Response> {
  const { clock, config } = deps;
  const now = clock.now();
  const { user } = found;
  const account = accountOf(found);
  const owner = isOwner(user);
  const [d, queue, standup, briefing, own, held] = await Promise.all([
    runOperation(deps, c, found, getAgentsOp, {}),
    runOperation(deps, c, found, listActionsOp, { limit: 100 }),
    runOptional(deps, c, found, getStandupOp, {}),
    runOperation(deps, c, found, getBriefingOp, {}),
    runOperation(deps, c, found, getOwnContentOp, {}),
    runOptional(deps, c, found, listHeldOp, {}),
  ]);
  const open = queue.actions.filter((a) => a.status !== "done" && a.status !== "dismissed");
  const top = open.filter((a) => a.priority === "critical" || a.priority === "high").slice(0, 5);
  // "No content of its own": the built-in composers run at start and on schedule, so they do not count.
  const fresh = !own.ownContent;
  const scopes = allowedKeyScopes(user.plan);
  const body = html`<h1>Dashboard</h1>
${alertBox("success", doneNotice(DONE, c.req.query("done")))}
${fresh ? gettingStarted(account, config.baseUrl, owner, config.oidc) : ""}
<section aria-labelledby="today-h" class="card">
  <h2 id="today-h">Today</h2>
  <p class="headline">${headlineOf(briefing.briefing) || html`<span class="muted">No briefing yet.</span>`} <a href="/briefing">Read the briefing</a></p>
  <div class="grid-2 plain">
    <div>
      <h3>Top actions</h3>
      ${
        top.length
          ? html`<ul class="plain-list">${top.map((a) => html`<li>${priorityBadge(a.priority)} <a href="/actions#${a.id}">${a.title}</a></li>`)}</ul>`
          : emptyState("No open critical or high action.", html`<a href="/actions">Open the action queue</a>`)
      }
    </div>
    <div>
      <h3>Interventions</h3>
      ${
        standup === null
          ? emptyState("No standup yet: the standup agent makes one at 08:00 and 18:00.", html`<a href="/standup">About the standup</a>`)
          : standup.interventions.length
            ? html`<ul class="plain-list">${standup.interventions.slice(0, 5).map((i) => html`<li>${priorityBadge(i.priority)} ${i.title} <span class="muted small">${agentName(i.agent)}</span></li>`)}</ul>`
            : emptyState("Nothing needs a person right now.")
      }
    </div>
  </div>
</section>
${held ? heldSection(account, held, owner) : ""}
<section aria-labelledby="health-h" class="section">
  <h2 id="health-h">Agent health</h2>
  ${summaryCards(d)}
  ${agentTable(d)}
</section>
<div class="grid-2">
  <section aria-labelledby="alerts-h" class="card">
    <h2 id="alerts-h">Integration alerts</h2>
    ${alertList(d, now)}
  </section>
  <section aria-labelledby="account-h" class="card">
    <h2 id="account-h">Account</h2>
    <dl class="facts">
      <dt>Name</dt><dd>${user.name}</dd>
      <dt>Email</dt><dd>${user.email}</dd>
      <dt>Role</dt><dd>${user.role}</dd>
      <dt>Plan</dt><dd><span class="badge badge-plan">${user.plan}</span></dd>
      <dt>Key scopes</dt><dd>${scopes.length ? scopes.join(", ") : html`<span class="muted">none on this plan</span>`}</dd>
    </dl>
    <p><a class="btn" href="/settings/keys">Manage API keys</a> <a class="btn btn-quiet" href="/connected-apps">Connected apps</a></p>
  </section>
</div>`;
  return renderPage(c, { title: "Dashboard", body, account, active: "/dashboard" });
}

const DONE = { demo: "Demo data loaded: a week of the crew's work to look around in." };

export function dashboardRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/dashboard", session(deps), (c) => renderDashboard(deps, c, c.var.session));
  router.route(
    "/",
    heldRoutes(deps, (deps, c, found) => renderDashboard(deps, c, found)),
  );

  // Owners only (the operation's role): the same as `crew seed --demo` (src/docs/notes/web-app.md), for the signed-in person's organization.
  router.post("/dashboard/demo", (c) =>
    handleForm(deps, c, renderDashboard, async (found) => {
      await runOperation(deps, c, found, loadDemoDataOp, {});
      return "/dashboard?done=demo";
    }),
  );

  return router;
}
