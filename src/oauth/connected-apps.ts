/**
 * The connected applications page (SPEC §6, §12): each OAuth client the user connected, where it
 * returns to, its scopes and last use, with a revoke form. Plain forms that work without
 * JavaScript; they call the same functions as GET/DELETE /api/oauth/grants.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../app.ts";
import type { Principal } from "../auth/access.ts";
import type { ValidSession } from "../auth/sessions.ts";
import { ApiError } from "../http/errors.ts";
import { type GrantView, listGrantsFor, revokeGrantFor } from "../operations/grants.ts";
import { ago, alertBox, csrfField, type Html, type PageAccount, renderPage, seeOther } from "../web/layout.ts";
import { accountOf, readForm, refuseForgedForm, requirePageSession } from "../web/pages.ts";

const principalOf = (found: ValidSession): Principal => ({
  userId: found.user.id,
  orgId: found.user.orgId,
  email: found.user.email,
  name: found.user.name,
  plan: found.user.plan,
  credential: { type: "session", id: found.session.id },
});

function appRows(account: PageAccount, grants: GrantView[], now: number): Html {
  if (grants.length === 0) {
    return html`<p class="muted">No applications are connected. When an MCP client such as Claude, Cursor or VS Code connects to Crew, it appears here.</p>`;
  }
  const rows = grants.map((g) => {
    const name = g.clientName ?? "Unnamed application";
    return html`<tr>
      <th scope="row" data-label="Application">${name} <span class="muted small mono">${g.clientId}</span></th>
      <td data-label="Returns to" class="mono">${g.redirectHost}</td>
      <td data-label="Scopes">${g.scopes.join(", ")}</td>
      <td data-label="Connected" class="nowrap">${ago(g.createdAt, now)}</td>
      <td data-label="Last used" class="nowrap">${ago(g.lastUsedAt, now)}</td>
      <td data-label="Revoke">
        <details class="confirm">
          <summary class="btn btn-danger-quiet">Revoke…</summary>
          <form method="post" action="/connected-apps/revoke" class="confirm-box">
            ${csrfField(account)}
            <input type="hidden" name="id" value="${g.id}">
            <p>Disconnect “${name}”? Its access ends at once; it must ask you again to reconnect.</p>
            <button type="submit" class="btn btn-danger">Revoke “${name}”</button>
          </form>
        </details>
      </td>
    </tr>`;
  });
  return html`<div class="table-wrap"><table class="table stack">
    <caption class="sr-only">Connected applications, newest first</caption>
    <thead><tr><th scope="col">Application</th><th scope="col">Returns to</th><th scope="col">Scopes</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

async function page(c: Context<AppEnv>, found: ValidSession, notice?: string, error?: string, status = 200): Promise<Response> {
  const deps = c.get("deps");
  const account = accountOf(found);
  const { grants } = await listGrantsFor(deps, principalOf(found));
  const body = html`<h1>Connected apps</h1>
<p class="lead">Applications you allowed to use Crew as you, over MCP or the REST API. “Last used” is when the application last obtained tokens.</p>
${alertBox("error", error)}
${alertBox("success", notice)}
<section class="card" aria-labelledby="apps-h">
  <h2 id="apps-h">Applications</h2>
  ${appRows(account, grants, deps.clock.now())}
</section>`;
  return renderPage(c, { title: "Connected apps", body, account, active: "/connected-apps" }, status);
}

export function connectedAppsRoutes(): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/connected-apps", async (c) => {
    const found = await requirePageSession(c);
    if (found instanceof Response) return found;
    return page(c, found, c.req.query("revoked") === "1" ? "Application disconnected." : undefined);
  });

  router.post("/connected-apps/revoke", async (c) => {
    const found = await requirePageSession(c);
    if (found instanceof Response) return found;
    const form = await readForm(c);
    const refused = await refuseForgedForm(c, found, form);
    if (refused) return refused;
    try {
      await revokeGrantFor(c.get("deps"), principalOf(found), form.get("id") ?? "");
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return page(c, found, undefined, "That application is not connected (any more).", 404);
      }
      throw error;
    }
    return seeOther(c, "/connected-apps?revoked=1");
  });

  return router;
}
