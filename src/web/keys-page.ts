/**
 * The API keys page: create (the raw key shown once, with a copy button), list with last use,
 * revoke with a confirmation step. Plain forms that work without JavaScript; they call the same
 * functions as the /api/mcp/keys operations (src/operations/keys.ts).
 */

import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import { sessionPrincipalOf } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { type ItemRow, itemTable } from "../html/item-table.ts";
import { alertBox, csrfField, type Html, type PageAccount, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { fieldRules } from "../html/ui.ts";
import { type CreatedKey, CreateKeyInput, createApiKeyOp, listKeysFor, revokeApiKeyOp } from "../operations/keys.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { runOperation } from "./run-operation.ts";

const SCOPE_HELP: Record<string, string> = {
  admin: "Everything, writes included: actions, contacts, handoffs, feed, agents, webhooks.",
  read: "Every read endpoint except the action queue: agents, standup, briefing, suggestions, profile.",
  briefing: "The daily briefing only.",
  agents: "Agent health only.",
};

interface FieldErrors {
  name?: string;
  scopes?: string;
}

interface KeysView {
  created?: CreatedKey;
  /** A refusal of the whole request (plan, rate limit, a key not found). */
  error?: string;
  /** What is wrong with each field of the create form. */
  fieldErrors?: FieldErrors;
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

/** Plans without API access: why there is no form, and who can change that. */
function noAccess(plan: string): Html {
  return html`<p>Your plan (<strong>${plan}</strong>) has no API access, so it cannot have keys. The <strong>pro</strong> and <strong>team_growth</strong> plans include read access; <strong>operator</strong> and <strong>team_enterprise</strong> include everything.</p>
    <p class="muted small">The administrator of this Crew can change your plan (<code>npx crew user set-plan</code>).</p>`;
}

const NAME_RULES = fieldRules(CreateKeyInput, "name");

function createForm(account: PageAccount, allowed: readonly string[], view: KeysView): Html {
  if (allowed.length === 0) return noAccess(account.user.plan);
  const errors = view.fieldErrors ?? {};
  const chosen = view.scopes ?? [allowed.includes("read") ? "read" : (allowed[0] ?? "")];
  const boxes = allowed.map(
    (scope) => html`<div class="check">
      <input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" aria-describedby="scope-${scope}-help"${chosen.includes(scope) ? html` checked` : ""}>
      <div><label for="scope-${scope}">${scope}</label> <span class="muted small" id="scope-${scope}-help">${SCOPE_HELP[scope] ?? ""}</span></div>
    </div>`,
  );
  // Without JavaScript nothing else can take the focus to the field to correct.
  const nameInvalid = errors.name ? html` aria-invalid="true" aria-describedby="key-name-error" autofocus` : "";
  return html`<form method="post" action="/settings/keys" class="stack">
    ${csrfField(account)}
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name"${NAME_RULES.required ? html` required` : ""} maxlength="${NAME_RULES.maxlength}" placeholder="e.g. Claude Desktop" value="${view.name ?? ""}"${nameInvalid}>
      ${errors.name ? html`<p class="field-error" id="key-name-error">${errors.name}</p>` : ""}
    </div>
    <fieldset class="field"${errors.scopes ? html` aria-describedby="scopes-error"` : ""}>
      <legend>Scopes</legend>
      ${errors.scopes ? html`<p class="field-error" id="scopes-error">${errors.scopes}</p>` : ""}
      ${boxes}
    </fieldset>
    <div><button type="submit" class="btn btn-primary">Create key</button></div>
  </form>`;
}

type KeyRow = Awaited<ReturnType<typeof listKeysFor>>["keys"][number];

function keyList(account: PageAccount, keys: KeyRow[], allowed: readonly string[], now: number): Html {
  if (keys.length === 0) return html`<p class="muted">No active keys.</p>`;
  const rows = keys.map(
    (k): ItemRow => ({
      name: k.name,
      id: html`<span class="muted small mono" title="SHA-256 ${k.hash}">${k.hash.slice(0, 8)}</span>`,
      cells: [{ value: k.scopes.join(", ") }],
      createdAt: k.createdAt,
      lastUsedAt: k.lastUsedAt,
      revoke: {
        action: "/settings/keys/revoke",
        field: ["hash", k.hash],
        question: `Revoke “${k.name}”? Anything using it stops working at once.`,
        verb: "Revoke key",
      },
    }),
  );
  // Keys kept from a plan with API access: the plan is read on every request, so they are refused now.
  const capped =
    allowed.length === 0
      ? html`<p class="alert alert-info">Your plan has no API access: requests with these keys are refused until the plan changes.</p>`
      : "";
  const caption = "Active API keys, newest first";
  return html`${capped}${itemTable(account, now, { caption, nameLabel: "Name", columns: ["Scopes"], createdLabel: "Created", rows })}`;
}

/** The operation's findings in the page's words: one message per field, saying what to do. */
function fieldErrorsOf(errors: Record<string, string>, name: string): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    if (path === "(body)") continue;
    if (path.startsWith("scopes")) out.scopes ??= path === "scopes" ? "Choose at least one scope." : message;
    else out.name ??= name.trim() === "" ? "Give the key a name, so you can tell it apart later." : message;
  }
  return out;
}

/** A refusal of the key operation in words for a person (the wire message counts seconds). */
function refusalText(error: ApiError): string {
  if (error.code !== "rate_limited") return error.message;
  const minutes = Math.max(1, Math.ceil(Number(error.extra.headers?.["Retry-After"] ?? 60) / 60));
  return `${error.message.split(";")[0]}. You can create the next one in ${minutes === 1 ? "a minute" : `${minutes} minutes`}.`;
}

async function keysPage(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  view: KeysView,
  status = 200,
  extra: Record<string, string> = {},
) {
  const account = accountOf(found);
  const listing = await listKeysFor(deps, sessionPrincipalOf(found));
  const invalid = Object.keys(view.fieldErrors ?? {}).length > 0;
  const body = html`<h1>API keys</h1>
<p class="lead">Keys let scripts and AI tools call Crew's REST API and MCP server as you. Your plan: <span class="badge badge-plan">${listing.plan}</span></p>
${alertBox("error", view.error ?? (invalid ? "The key was not created: correct the form below." : null))}
${alertBox("success", view.notice)}
${view.created ? createdPanel(view.created) : ""}
<div class="grid-keys">
  <section class="card" aria-labelledby="create-h">
    <h2 id="create-h">Create a key</h2>
    ${createForm(account, listing.allowedScopes, view)}
  </section>
  <section class="card" aria-labelledby="list-h">
    <h2 id="list-h">Active keys</h2>
    ${keyList(account, listing.keys, listing.allowedScopes, deps.clock.now())}
  </section>
</div>`;
  return renderPage(c, { title: "API keys", body, account, active: "/settings/keys" }, status, extra);
}

export function keysPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/settings/keys", session(deps), (c) =>
    keysPage(deps, c, c.var.session, { notice: c.req.query("revoked") === "1" ? "Key revoked." : undefined }),
  );

  const rejected: PageRenderer = (deps, c, found, state, status) => {
    const typed = { name: state?.values.name ?? "", scopes: state?.sent.getAll("scopes") ?? [] };
    const errors = state?.errors ?? {};
    return keysPage(deps, c, found, { fieldErrors: fieldErrorsOf(errors, typed.name), error: errors["(body)"], ...typed }, status);
  };

  router.post("/settings/keys", (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      const raw = { name: form.get("name") ?? "", scopes: form.getAll("scopes") };
      try {
        const created = await runOperation(deps, c, found, createApiKeyOp, raw);
        return keysPage(deps, c, found, { created });
      } catch (error) {
        // A refusal of the whole request (plan, rate limit) is said in the page; a 400 goes back to the form.
        if (!(error instanceof ApiError) || error.status === 400) throw error;
        return keysPage(deps, c, found, { error: refusalText(error), ...raw }, error.status, error.extra.headers);
      }
    }),
  );

  router.post("/settings/keys/revoke", (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      try {
        await runOperation(deps, c, found, revokeApiKeyOp, { hash: form.get("hash") ?? "" });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return keysPage(deps, c, found, { error: "That key was not found: it may have been revoked already." }, 404);
      }
      return "/settings/keys?revoked=1";
    }),
  );

  return router;
}
