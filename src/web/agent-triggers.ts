/**
 * The Triggers card of a model-backed agent's page (src/docs/notes/connections.md): whether new
 * mail starts the inbox agent (a switch), and the agent's event-trigger secret — made or replaced
 * by an owner and shown once, on the page that answers the form. Both run the operations REST
 * and MCP run (updateAgent, createTriggerSecret).
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { jobOf } from "../agents/jobs.ts";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { csrfField, type Html, renderPage } from "../html/layout.ts";
import { accountOf } from "../html/page-frame.ts";
import { type AgentView, updateAgentOp } from "../operations/agent-runs.ts";
import { createTriggerSecretOp } from "../operations/agent-trigger.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { runOperation } from "./run-operation.ts";

/** The card, from the agent as getAgent answers it (whether new mail starts it, whether it has a secret). */
export function triggersSection(found: ValidSession, agent: AgentView): Html | string {
  const agentId = agent.id;
  if (jobOf(agentId).runner !== "model") return "";
  const triggers = { runOnNewMail: agent.runOnNewMail, secret: agent.triggerSecret };
  const account = accountOf(found);
  const owner = isOwner(found.user);
  const mail =
    agentId === "inbox"
      ? html`<p>${triggers.runOnNewMail ? "New mail starts a run within about a minute (at most one per 5 minutes per mailbox)." : "New mail does not start runs: only the schedule does."}</p>
  ${
    owner
      ? html`<form method="post" action="/agents/${agentId}/new-mail" class="inline">${csrfField(account)}<input type="hidden" name="on" value="${triggers.runOnNewMail ? "off" : "on"}"><button type="submit" class="btn">${triggers.runOnNewMail ? "Stop starting on new mail" : "Start on new mail"}</button></form>`
      : ""
  }`
      : "";
  return html`<section class="card" aria-labelledby="triggers-h">
  <h2 id="triggers-h">Triggers</h2>
  ${mail}
  <p>Other tools start this agent with an event: <code>POST /api/agents/${agentId}/trigger</code> with an owner's admin key, or signed with the trigger secret (<a href="/docs/notes/connections#event-triggers">how</a>). ${triggers.secret ? "A trigger secret is set." : "No trigger secret yet."}</p>
  ${
    owner
      ? html`<form method="post" action="/agents/${agentId}/trigger-secret" class="inline">${csrfField(account)}<button type="submit" class="btn">${triggers.secret ? "Replace the trigger secret" : "Make a trigger secret"}</button></form>`
      : ""
  }
</section>`;
}

export function agentTriggerRoutes(deps: AppDeps, renderAgent: PageRenderer): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.post("/agents/:id/new-mail", (c) =>
    handleForm(deps, c, renderAgent, async (found, form) => {
      const id = c.req.param("id");
      await runOperation(deps, c, found, updateAgentOp, { id, runOnNewMail: form.get("on") === "on" });
      return `/agents/${id}`;
    }),
  );
  router.post("/agents/:id/trigger-secret", (c) =>
    handleForm(deps, c, renderAgent, async (found) => {
      const id = c.req.param("id");
      const { secret } = await runOperation(deps, c, found, createTriggerSecretOp, { id });
      // Shown once, here: it is stored sealed and never shown again.
      const body = html`<h1>Trigger secret for ${id}</h1>
<p class="lead">Copy it now: Crew stores it sealed and will not show it again. Making another replaces it.</p>
<p><code class="mono">${secret}</code></p>
<p>Sign <code>POST /api/agents/${id}/trigger</code> with it the Standard Webhooks way (<a href="/docs/notes/connections#event-triggers">how</a>).</p>
<p><a class="btn" href="/agents/${id}">Back to the agent</a></p>`;
      return renderPage(c, { title: "Trigger secret", body, account: accountOf(found), active: "/dashboard" });
    }),
  );
  return router;
}
