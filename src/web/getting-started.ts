/**
 * The dashboard's "getting started" (src/docs/notes/web-app.md): shown while the organization has no content of its
 * own. This server's MCP URL and ready set-ups for Claude Code, Cursor, VS Code and curl, filled in
 * with `{base}`; where keys are made; how a model is connected (src/docs/notes/model.md); and for owners the demo data.
 */
import { html } from "hono/html";
import type { OidcEnv } from "../config.ts";
import { planTier } from "../domain.ts";
import { csrfField, type Html, type PageAccount } from "../html/layout.ts";
import { TOOLSETS } from "../mcp/toolsets.ts";

function snippet(id: string, title: string, where: Html | string, code: string): Html {
  return html`<section class="setup" aria-labelledby="${id}-h">
    <h3 id="${id}-h">${title}</h3>
    <p class="small muted">${where}</p>
    <div class="code-row"><pre id="${id}" tabindex="0"><code>${code}</code></pre>
    <button type="button" class="btn btn-small" data-copy="${id}" hidden>Copy<span class="sr-only"> the ${title} set-up</span></button></div>
  </section>`;
}

/** With single sign-on, what plan its new people get, when that plan cannot connect an MCP client. */
function ssoPlanNote(oidc: OidcEnv | null): Html | string {
  if (!oidc) return "";
  const none = planTier(oidc.defaultPlan) === "none";
  return html`<p class="small">People who sign in with ${oidc.name} for the first time get the plan <code>${oidc.defaultPlan}</code> (<code>OIDC_DEFAULT_PLAN</code>)${
    none
      ? html`, which has no API and no MCP: to connect Claude they need pro or operator, set on <a href="/settings/users">Users</a> or by <code>OIDC_DEFAULT_PLAN</code>`
      : ""
  }.</p>`;
}

export function gettingStarted(account: PageAccount, baseUrl: string, owner: boolean, oidc: OidcEnv | null = null): Html {
  const mcp = `${baseUrl}/mcp`;
  const cursor = JSON.stringify({ mcpServers: { crew: { url: mcp } } }, null, 2);
  const vscode = JSON.stringify({ servers: { crew: { type: "http", url: mcp } } }, null, 2);
  return html`<section class="card getting-started" aria-labelledby="start-h">
  <h2 id="start-h">Getting started</h2>
  <p>Your crew has no work of its own yet. Connect an MCP client to this server, or load demo data to look around first.</p>
  ${ssoPlanNote(oidc)}
  <div class="field"><label for="mcp-url">This server's MCP URL</label>
    <div class="copy-row"><input id="mcp-url" value="${mcp}" readonly><button type="button" class="btn" data-copy="mcp-url" hidden>Copy<span class="sr-only"> the MCP URL</span></button></div>
  </div>
  <div class="setups">
    ${snippet("setup-claude", "Claude Code", "Run in a terminal; Claude Code signs you in through your browser (OAuth).", `claude mcp add --transport http crew ${mcp}`)}
    ${snippet("setup-cursor", "Cursor", html`In <code>~/.cursor/mcp.json</code>; Cursor opens the sign-in page when it connects.`, cursor)}
    ${snippet("setup-vscode", "VS Code", html`In <code>.vscode/mcp.json</code> of your workspace; VS Code asks you to sign in.`, vscode)}
    ${snippet("setup-curl", "curl", html`With an API key from <a href="/settings/keys">API keys</a> (plans pro and up).`, `curl -H "Authorization: Bearer crew_…" ${baseUrl}/api/mcp/agents`)}
  </div>
  <p class="small">Only reading? Use <code>${mcp}/readonly</code>. Only some tools? <code>${mcp}/x/actions</code> (toolsets: ${TOOLSETS.join(", ")}), or the headers <code>X-MCP-Readonly: true</code> and <code>X-MCP-Toolsets: actions,calendar</code>; <a href="/docs/notes/mcp-clients#read-only-and-toolsets">more</a>.</p>
  <p>Agents do their work once a language model is connected: an owner sets it on <a href="/docs">the docs' model set-up</a> (or by <code>CREW_MODEL_*</code> environment variables). Until then they say what they lack.</p>
  ${
    owner
      ? html`<form method="post" action="/dashboard/demo" class="demo-form">${csrfField(account)}
    <button type="submit" class="btn btn-primary">Load demo data</button>
    <span class="small muted">The same as <code>crew seed --demo</code>: a week of agent runs, actions, contacts and insights, marked so a later seed replaces them.</span>
  </form>`
      : html`<p class="small muted">An owner of your organization can load demo data here.</p>`
  }
</section>`;
}
