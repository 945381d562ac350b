/**
 * The webhooks page (src/docs/notes/webhooks.md): subscribe a URL to events (the signing secret shown once, with
 * a copy button), list the organization's subscriptions with their last delivery attempt, delete
 * with a confirmation step. Plain forms that work without JavaScript; they call the same functions
 * as the /api/webhooks operations (src/operations/webhooks.ts). In the web app the organization's
 * owners manage webhooks, on any plan (src/docs/notes/web-app.md: plans cap MCP/REST, not the web app); members get
 * the owners-only page.
 */

import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import { sessionPrincipalOf } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { WEBHOOK_EVENTS } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { type ItemRow, itemTable } from "../html/item-table.ts";
import { ago, alertBox, csrfField, type Html, type PageAccount, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { type CreatedWebhook, createWebhookOp, deleteWebhookOp, listWebhooksFor } from "../operations/webhooks.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { owner } from "./owner.ts";
import { runOperation } from "./run-operation.ts";

const EVENT_HELP: Record<string, string> = {
  "action.created": "A task was added to the action queue (API, MCP or an agent).",
  "briefing.completed": "A person's daily briefing is ready.",
  "standup.ready": "The morning standup is ready.",
  "budget.warning": "80 % of a model token budget is used today (once per budget per day).",
};

interface FieldErrors {
  url?: string;
  events?: string;
  description?: string;
}

interface WebhooksView {
  created?: CreatedWebhook;
  error?: string;
  fieldErrors?: FieldErrors;
  notice?: string;
  url?: string;
  events?: string[];
  description?: string;
}

function createdPanel(created: CreatedWebhook): Html {
  return html`<section class="card card-success" aria-labelledby="new-hook-h">
  <h2 id="new-hook-h">Webhook created</h2>
  <p>Events now go to <span class="mono">${created.url}</span>. Copy the signing secret into the receiver now: Crew <strong>will not show it again</strong>.</p>
  <div class="copy-row">
    <label class="sr-only" for="new-secret">Signing secret</label>
    <input id="new-secret" class="mono" readonly value="${created.secret}" spellcheck="false" autocomplete="off">
    <button type="button" class="btn btn-primary" data-copy="new-secret" hidden>Copy</button>
  </div>
  <p class="muted small">Verify each request with any Standard Webhooks library (headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>).</p>
</section>`;
}

function createForm(account: PageAccount, view: WebhooksView): Html {
  const errors = view.fieldErrors ?? {};
  const chosen = view.events ?? ["action.created"];
  const boxes = WEBHOOK_EVENTS.map(
    (event) => html`<div class="check">
      <input type="checkbox" id="event-${event}" name="events" value="${event}" aria-describedby="event-${event}-help"${chosen.includes(event) ? html` checked` : ""}>
      <div><label for="event-${event}">${event}</label> <span class="muted small" id="event-${event}-help">${EVENT_HELP[event] ?? ""}</span></div>
    </div>`,
  );
  // Without JavaScript nothing else can take the focus to the field to correct.
  const urlInvalid = errors.url ? html` aria-invalid="true" aria-describedby="hook-url-error" autofocus` : "";
  const descriptionInvalid = errors.description ? html` aria-invalid="true" aria-describedby="hook-description-error"` : "";
  return html`<form method="post" action="/settings/webhooks" class="stack">
    ${csrfField(account)}
    <div class="field">
      <label for="hook-url">URL</label>
      <input id="hook-url" name="url" required maxlength="2000" inputmode="url" spellcheck="false" placeholder="https://example.com/crew-events" value="${view.url ?? ""}"${urlInvalid}>
      ${errors.url ? html`<p class="field-error" id="hook-url-error">${errors.url}</p>` : ""}
    </div>
    <fieldset class="field"${errors.events ? html` aria-describedby="events-error"` : ""}>
      <legend>Events</legend>
      ${errors.events ? html`<p class="field-error" id="events-error">${errors.events}</p>` : ""}
      ${boxes}
    </fieldset>
    <div class="field">
      <label for="hook-description">Description <span class="muted small">(optional)</span></label>
      <input id="hook-description" name="description" maxlength="5000" placeholder="e.g. Zapier: new actions to Slack" value="${view.description ?? ""}"${descriptionInvalid}>
      ${errors.description ? html`<p class="field-error" id="hook-description-error">${errors.description}</p>` : ""}
    </div>
    <div><button type="submit" class="btn btn-primary">Create webhook</button></div>
  </form>`;
}

type WebhookRow = Awaited<ReturnType<typeof listWebhooksFor>>["webhooks"][number];

function hookList(account: PageAccount, hooks: WebhookRow[], now: number): Html {
  if (hooks.length === 0) return html`<p class="muted">No webhooks yet.</p>`;
  const rows = hooks.map((h): ItemRow => {
    const name = h.description ?? new URL(h.url).host;
    return {
      name,
      // The URL under the name, where a long one has the widest column to wrap in.
      id: html`<br><span class="small mono">${h.url}</span>`,
      cells: [
        { value: h.events.join(", ") },
        { value: ago(h.lastSuccessAt, now) },
        {
          value: h.lastFailureAt
            ? html`${ago(h.lastFailureAt, now)}<br><span class="small field-error">${h.lastFailureReason ?? ""}</span>`
            : html`<span class="muted">none</span>`,
        },
      ],
      createdAt: h.createdAt,
      lastUsedAt: h.lastAttemptAt,
      revoke: {
        action: "/settings/webhooks/delete",
        field: ["id", h.id],
        question: `Delete the webhook to ${h.url}? Crew stops sending events to it at once, pending retries included.`,
        verb: "Delete webhook",
        label: "Delete…",
      },
    };
  });
  const caption = "Webhooks of your organization, newest first; “Last used” is the latest delivery attempt, whatever its outcome";
  return itemTable(account, now, {
    caption,
    nameLabel: "Webhook",
    columns: ["Events", "Last success", "Last failure"],
    createdLabel: "Created",
    rows,
  });
}

/** The operation's findings in the page's words: one message per field, saying what to do. */
function fieldErrorsOf(errors: Record<string, string>, url: string): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    if (path === "(body)") continue;
    if (path.startsWith("events")) out.events ??= path === "events" ? "Choose at least one event." : message;
    else if (path === "description") out.description ??= message;
    else out.url ??= url.trim() === "" ? "Give the URL that receives the events." : message;
  }
  return out;
}

async function webhooksPage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession, view: WebhooksView, status = 200): Promise<Response> {
  const account = accountOf(found);
  const title = "Webhooks";
  const { webhooks } = await listWebhooksFor(deps, sessionPrincipalOf(found));
  const invalid = Object.keys(view.fieldErrors ?? {}).length > 0;
  const body = html`<h1>Webhooks</h1>
<p class="lead">Crew POSTs signed JSON to these URLs when events happen in your organization, and retries for about 7 hours until the receiver answers 2xx.</p>
${alertBox("error", view.error ?? (invalid ? "The webhook was not created: correct the form below." : null))}
${alertBox("success", view.notice)}
${view.created ? createdPanel(view.created) : ""}
<div class="grid-keys">
  <section class="card" aria-labelledby="create-h">
    <h2 id="create-h">Add a webhook</h2>
    ${createForm(account, view)}
  </section>
  <section class="card" aria-labelledby="list-h">
    <h2 id="list-h">Webhooks</h2>
    ${hookList(account, webhooks, deps.clock.now())}
  </section>
</div>`;
  return renderPage(c, { title, body, account, active: "/settings/webhooks" }, status);
}

export function webhooksPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/settings/webhooks", session(deps), owner(), async (c) => {
    const found = c.var.session;
    return webhooksPage(deps, c, found, { notice: c.req.query("deleted") === "1" ? "Webhook deleted." : undefined });
  });

  const rejected: PageRenderer = (deps, c, found, state, status) => {
    const view = { url: state?.values.url ?? "", events: state?.sent.getAll("events") ?? [], description: state?.values.description ?? "" };
    const errors = state?.errors ?? {};
    return webhooksPage(deps, c, found, { ...view, fieldErrors: fieldErrorsOf(errors, view.url), error: errors["(body)"] }, status);
  };

  router.post("/settings/webhooks", (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      const description = (form.get("description") ?? "").trim();
      const raw = { url: form.get("url") ?? "", events: form.getAll("events"), ...(description ? { description } : {}) };
      try {
        return await webhooksPage(deps, c, found, { created: await runOperation(deps, c, found, createWebhookOp, raw) });
      } catch (error) {
        // A refusal that is not about a field (e.g. too many webhooks) is said in the page.
        if (!(error instanceof ApiError) || error.status === 400 || error.code === "forbidden") throw error;
        return webhooksPage(deps, c, found, { url: raw.url, events: raw.events, description, error: error.message }, error.status);
      }
    }),
  );

  router.post("/settings/webhooks/delete", (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      try {
        await runOperation(deps, c, found, deleteWebhookOp, { id: form.get("id") ?? "" });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code === "forbidden") throw error;
        return webhooksPage(deps, c, found, { error: "That webhook was not found: it may have been deleted already." }, 404);
      }
      return "/settings/webhooks?deleted=1";
    }),
  );

  return router;
}
