/**
 * The connected applications page (src/docs/notes/oauth.md): each OAuth client the user connected, where it
 * returns to, its scopes and last use, with a revoke form. Plain forms that work without
 * JavaScript; they call the same functions as GET/DELETE /api/oauth/grants.
 */

import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import { sessionPrincipalOf } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { type ItemRow, itemTable } from "../html/item-table.ts";
import { alertBox, type Html, type PageAccount, renderPage, seeOther } from "../html/layout.ts";
import { accountOf, readSignedInForm, requirePageSession } from "../html/page-frame.ts";
import { type GrantView, listGrantsFor, revokeGrantFor } from "../operations/grants.ts";

function appRows(account: PageAccount, grants: GrantView[], now: number): Html {
  if (grants.length === 0) {
    return html`<p class="muted">No applications are connected. When an MCP client such as Claude, Cursor or VS Code connects to Crew, it appears here.</p>`;
  }
  const rows = grants.map((g): ItemRow => {
    const name = g.clientName ?? "Unnamed application";
    return {
      name,
      id: html`<span class="muted small mono">${g.clientId}</span>`,
      cells: [{ value: g.redirectHost, mono: true }, { value: g.scopes.join(", ") }],
      createdAt: g.createdAt,
      lastUsedAt: g.lastUsedAt,
      revoke: {
        action: "/connected-apps/revoke",
        field: ["id", g.id],
        question: `Disconnect “${name}”? Its access ends at once; it must ask you again to reconnect.`,
        verb: "Revoke",
      },
    };
  });
  const caption = "Connected applications, newest first";
  return itemTable(account, now, { caption, nameLabel: "Application", columns: ["Returns to", "Scopes"], createdLabel: "Connected", rows });
}

async function page(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  notice?: string,
  error?: string,
  status = 200,
): Promise<Response> {
  const account = accountOf(found);
  const { grants } = await listGrantsFor(deps, sessionPrincipalOf(found));
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

export function connectedAppsRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/connected-apps", async (c) => {
    const found = await requirePageSession(deps, c);
    if (found instanceof Response) return found;
    return page(deps, c, found, c.req.query("revoked") === "1" ? "Application disconnected." : undefined);
  });

  router.post("/connected-apps/revoke", async (c) => {
    const signed = await readSignedInForm(deps, c);
    if (signed instanceof Response) return signed;
    const { found, form } = signed;
    try {
      await revokeGrantFor(deps, sessionPrincipalOf(found), form.get("id") ?? "");
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return page(deps, c, found, undefined, "That application is not connected (any more).", 404);
      }
      throw error;
    }
    return seeOther(c, "/connected-apps?revoked=1");
  });

  return router;
}
