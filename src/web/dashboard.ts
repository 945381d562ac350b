/** The signed-in dashboard: agent health (the same data as GET /api/mcp/agents), integration alerts, account. */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppDeps, AppEnv } from "../deps.ts";
import { allowedKeyScopes } from "../domain.ts";
import { type AgentDashboard, agentDashboard } from "../operations/agents.ts";
import { ago, type Html, renderPage } from "./layout.ts";
import { accountOf, requirePageSession } from "./pages.ts";

const HEALTH_LABEL: Record<string, string> = { green: "Healthy", stale: "Stale", error: "Error", never_ran: "Never ran" };

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
    ${card("Agents", d.total, "total")}${card("Healthy", d.healthy, "green")}${card("Stale", d.stale, "stale")}${card("Errors", d.errors, "error")}${card("Never ran", d.neverRan, "never_ran")}
  </ul>`;
}

function agentTable(d: AgentDashboard): Html {
  const rows = d.agents.map(
    (a) => html`<tr>
      <th scope="row" data-label="Agent"><span class="agent-name">${a.name}</span> <span class="muted small">${a.id}</span></th>
      <td data-label="Category" class="optional">${a.category}</td>
      <td data-label="Health"><span class="badge badge-${a.health}">${HEALTH_LABEL[a.health] ?? a.health}</span></td>
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

export function dashboardRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/dashboard", async (c) => {
    const found = await requirePageSession(deps, c);
    if (found instanceof Response) return found;
    const { db, clock } = deps;
    const now = clock.now();
    const { user } = found;
    const d = await agentDashboard(db, user.orgId, user.id, now);
    const scopes = allowedKeyScopes(user.plan);
    const body = html`<h1>Dashboard</h1>
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
      <dt>Plan</dt><dd><span class="badge badge-plan">${user.plan}</span></dd>
      <dt>Key scopes</dt><dd>${scopes.length ? scopes.join(", ") : html`<span class="muted">none on this plan</span>`}</dd>
    </dl>
    <p><a class="btn" href="/dashboard/keys">Manage API keys</a> <a class="btn btn-quiet" href="/connected-apps">Connected apps</a></p>
  </section>
</div>`;
    return renderPage(c, { title: "Dashboard", body, account: accountOf(found), active: "/dashboard" });
  });

  return router;
}
