/**
 * The API keys page: create (the raw key shown once, with a copy button), list with last use,
 * revoke with a confirmation step. Plain forms that work without JavaScript; they call the same
 * functions as the /api/mcp/keys operations (src/operations/keys.ts).
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import * as v from "valibot";
import type { AppEnv } from "../app.ts";
import type { Principal } from "../auth/access.ts";
import type { ValidSession } from "../auth/sessions.ts";
import { ApiError } from "../http/errors.ts";
import { toFieldIssues } from "../http/validate.ts";
import { type CreatedKey, CreateKeyInput, createKeyFor, listKeysFor, revokeKeyFor } from "../operations/keys.ts";
import { ago, alertBox, csrfField, type Html, type PageAccount, renderPage, seeOther } from "./layout.ts";
import { accountOf, readForm, refuseForgedForm, requirePageSession } from "./pages.ts";

const SCOPE_HELP: Record<string, string> = {
  admin: "Everything, writes included: actions, contacts, handoffs, feed, agents, webhooks.",
  read: "Every read endpoint except the action queue: agents, standup, briefing, suggestions, profile.",
  briefing: "The daily briefing only.",
  agents: "Agent health only.",
};

interface KeysView {
  created?: CreatedKey;
  error?: string;
  notice?: string;
  name?: string;
  scopes?: string[];
}

function createdPanel(created: CreatedKey): Html {
  return html`<section class="card card-success" aria-labelledby="new-key-h">
  <h2 id="new-key-h">Key “${created.name}” created</h2>
  <p>Copy it now: Crew stores only its hash and <strong>will not show it again</strong>.</p>
  <div class="copy-row">
    <label class="sr-only" for="new-key">New API key</label>
    <input id="new-key" class="mono" readonly value="${created.key}" spellcheck="false" autocomplete="off">
    <button type="button" class="btn btn-primary" data-copy="new-key" hidden>Copy</button>
  </div>
  <p class="muted small">Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Scopes: ${created.scopes.join(", ")}.</p>
</section>`;
}

function createForm(account: PageAccount, allowed: readonly string[], view: KeysView): Html {
  if (allowed.length === 0) {
    return html`<p>Your plan (<strong>${account.user.plan}</strong>) has no API access, so it cannot have keys. The <strong>pro</strong> plan includes read access; <strong>operator</strong> includes everything.</p>`;
  }
  const chosen = view.scopes ?? [allowed.includes("read") ? "read" : (allowed[0] ?? "")];
  const boxes = allowed.map(
    (scope) => html`<div class="check">
      <input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" aria-describedby="scope-${scope}-help"${chosen.includes(scope) ? html` checked` : ""}>
      <div><label for="scope-${scope}">${scope}</label> <span class="muted small" id="scope-${scope}-help">${SCOPE_HELP[scope] ?? ""}</span></div>
    </div>`,
  );
  return html`<form method="post" action="/dashboard/keys" class="stack">
    ${csrfField(account)}
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name" required maxlength="100" placeholder="e.g. Claude Desktop" value="${view.name ?? ""}">
    </div>
    <fieldset class="field">
      <legend>Scopes</legend>
      ${boxes}
    </fieldset>
    <div><button type="submit" class="btn btn-primary">Create key</button></div>
  </form>`;
}

function keyList(account: PageAccount, keys: Awaited<ReturnType<typeof listKeysFor>>["keys"], now: number): Html {
  if (keys.length === 0) return html`<p class="muted">No active keys.</p>`;
  const rows = keys.map(
    (k) => html`<tr>
      <th scope="row" data-label="Name">${k.name} <span class="muted small mono" title="SHA-256 ${k.hash}">${k.hash.slice(0, 8)}</span></th>
      <td data-label="Scopes">${k.scopes.join(", ")}</td>
      <td data-label="Created" class="nowrap">${ago(k.createdAt, now)}</td>
      <td data-label="Last used" class="nowrap">${ago(k.lastUsedAt, now)}</td>
      <td data-label="Revoke">
        <details class="confirm">
          <summary class="btn btn-danger-quiet">Revoke…</summary>
          <form method="post" action="/dashboard/keys/revoke" class="confirm-box">
            ${csrfField(account)}
            <input type="hidden" name="hash" value="${k.hash}">
            <p>Revoke “${k.name}”? Anything using it stops working at once.</p>
            <button type="submit" class="btn btn-danger">Revoke key “${k.name}”</button>
          </form>
        </details>
      </td>
    </tr>`,
  );
  return html`<div class="table-wrap"><table class="table stack">
    <caption class="sr-only">Active API keys, newest first</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

const principalOf = (found: ValidSession): Principal => ({
  userId: found.user.id,
  orgId: found.user.orgId,
  email: found.user.email,
  name: found.user.name,
  plan: found.user.plan,
  credential: { type: "session" as const, id: found.session.id },
});

async function keysPage(c: Context<AppEnv>, found: ValidSession, view: KeysView, status = 200, extra: Record<string, string> = {}) {
  const deps = c.get("deps");
  const account = accountOf(found);
  const listing = await listKeysFor(deps, principalOf(found));
  const body = html`<h1>API keys</h1>
<p class="lead">Keys let scripts and AI tools call Crew's REST API and MCP server as you. Your plan: <span class="badge badge-plan">${listing.plan}</span></p>
${alertBox("error", view.error)}
${alertBox("success", view.notice)}
${view.created ? createdPanel(view.created) : ""}
<div class="grid-keys">
  <section class="card" aria-labelledby="create-h">
    <h2 id="create-h">Create a key</h2>
    ${createForm(account, listing.allowedScopes, view)}
  </section>
  <section class="card" aria-labelledby="list-h">
    <h2 id="list-h">Active keys</h2>
    ${keyList(account, listing.keys, deps.clock.now())}
  </section>
</div>`;
  return renderPage(c, { title: "API keys", body, account, active: "/dashboard/keys" }, status, extra);
}

export function keysPageRoutes(): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/dashboard/keys", async (c) => {
    const found = await requirePageSession(c);
    if (found instanceof Response) return found;
    return keysPage(c, found, { notice: c.req.query("revoked") === "1" ? "Key revoked." : undefined });
  });

  router.post("/dashboard/keys", async (c) => {
    const found = await requirePageSession(c);
    if (found instanceof Response) return found;
    const form = await readForm(c);
    const refused = await refuseForgedForm(c, found, form);
    if (refused) return refused;
    const raw = { name: form.get("name") ?? "", scopes: form.getAll("scopes") };
    const parsed = v.safeParse(CreateKeyInput, raw, { abortEarly: false });
    if (!parsed.success) {
      const error = toFieldIssues(parsed.issues)
        .map((i) => `${i.path.startsWith("scopes") ? "Scopes" : "Name"}: ${i.message}`)
        .join(" ");
      return keysPage(c, found, { error, name: raw.name, scopes: raw.scopes }, 400);
    }
    try {
      const created = await createKeyFor(c.get("deps"), principalOf(found), parsed.output);
      return keysPage(c, found, { created });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return keysPage(c, found, { error: error.message, name: raw.name, scopes: raw.scopes }, error.status, error.extra.headers);
    }
  });

  router.post("/dashboard/keys/revoke", async (c) => {
    const found = await requirePageSession(c);
    if (found instanceof Response) return found;
    const form = await readForm(c);
    const refused = await refuseForgedForm(c, found, form);
    if (refused) return refused;
    const hash = (form.get("hash") ?? "").toLowerCase();
    try {
      if (!/^[0-9a-f]{64}$/.test(hash)) throw new ApiError(404, "not_found", "No active key of yours has this hash.");
      await revokeKeyFor(c.get("deps"), principalOf(found), hash);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return keysPage(c, found, { error: "That key was not found: it may have been revoked already." }, 404);
    }
    return seeOther(c, "/dashboard/keys?revoked=1");
  });

  return router;
}
