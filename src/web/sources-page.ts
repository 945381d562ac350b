/**
 * The Sources page (src/docs/notes/sources.md), /settings/sources: the organization's IMAP mailbox (read by
 * the `inbox` agent) and its feeds (each read by the agents ticked for it), each with the problem
 * of its last read; add a mailbox or a feed, delete one with a confirmation step. Plain forms
 * that work without JavaScript, CSRF-checked; they run the same operations as
 * /api/integrations/sources (src/operations/sources.ts), which are the owners' (members get the
 * "Owners only" page; the web app is not capped by plan).
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { type ItemRow, itemTable } from "../html/item-table.ts";
import { ago, alertBox, csrfField, type Html, type PageAccount, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { agentName } from "../html/words.ts";
import { FEED_AGENTS, MAILBOX_AGENT } from "../integrations/sources.ts";
import { addSourceOp, deleteSourceOp, listSourcesOp, type SourceView } from "../operations/sources.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { owner } from "./owner.ts";
import { runOperation } from "./run-operation.ts";

const PATH = "/settings/sources";

interface SourcesView {
  error?: string;
  notice?: string;
  /** Which form the errors belong to, and what was typed there (never a password). */
  form?: "imap" | "feed";
  fieldErrors?: Record<string, string>;
  typed?: Record<string, string | string[]>;
}

const field = (
  id: string,
  name: string,
  label: Html | string,
  view: SourcesView,
  form: "imap" | "feed",
  attrs: Html | string,
  hint?: string,
): Html => {
  const error = view.form === form ? view.fieldErrors?.[name] : undefined;
  const typed = view.form === form && name !== "password" ? view.typed?.[name] : undefined;
  const value = typeof typed === "string" ? html` value="${typed}"` : "";
  const invalid = error ? html` aria-invalid="true" aria-describedby="${id}-error"` : "";
  return html`<div class="field">
      <label for="${id}">${label}</label>
      <input id="${id}" name="${name}"${attrs}${value}${invalid}>
      ${hint ? html`<p class="muted small">${hint}</p>` : ""}
      ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ""}
    </div>`;
};

function mailboxForm(account: PageAccount, view: SourcesView, hasMailbox: boolean): Html {
  const tlsOff = view.form === "imap" && view.typed && view.typed.tls !== "on";
  return html`<form method="post" action="${PATH}" class="stack">
    ${csrfField(account)}
    <input type="hidden" name="kind" value="imap">
    ${hasMailbox ? html`<p class="muted small">Saving replaces the current mailbox; the inbox agent then reads it afresh.</p>` : ""}
    ${field("imap-host", "host", "IMAP server", view, "imap", html` required maxlength="253" spellcheck="false" placeholder="imap.fastmail.com"`)}
    ${field("imap-port", "port", html`Port <span class="muted small">(optional)</span>`, view, "imap", html` inputmode="numeric" maxlength="5" placeholder="993"`, "Default 993 with TLS, 143 without.")}
    <div class="check">
      <input type="checkbox" id="imap-tls" name="tls" value="on"${tlsOff ? "" : html` checked`}>
      <div><label for="imap-tls">TLS (IMAPS)</label></div>
    </div>
    ${field("imap-username", "username", "User name", view, "imap", html` required maxlength="320" autocomplete="off" spellcheck="false"`)}
    ${field("imap-password", "password", "Password or app password", view, "imap", html` type="password" required maxlength="1000" autocomplete="new-password"`, "Stored encrypted; never shown again.")}
    ${field("imap-folder", "folder", html`Folder <span class="muted small">(optional)</span>`, view, "imap", html` maxlength="200" placeholder="INBOX"`)}
    <p class="muted small">Crew only reads: it never marks mail as read, moves or deletes it.</p>
    <div><button type="submit" class="btn btn-primary">Save mailbox</button></div>
  </form>`;
}

function feedForm(account: PageAccount, view: SourcesView): Html {
  const typedAgents = view.form === "feed" ? view.typed?.agents : undefined;
  const chosen = Array.isArray(typedAgents) ? typedAgents : ["research"];
  const agentsError = view.form === "feed" ? view.fieldErrors?.agents : undefined;
  const boxes = FEED_AGENTS.map(
    (agent) => html`<div class="check">
      <input type="checkbox" id="feed-agent-${agent}" name="agents" value="${agent}"${chosen.includes(agent) ? html` checked` : ""}>
      <div><label for="feed-agent-${agent}">${agent}</label></div>
    </div>`,
  );
  return html`<form method="post" action="${PATH}" class="stack">
    ${csrfField(account)}
    <input type="hidden" name="kind" value="feed">
    ${field("feed-url", "url", "Feed URL", view, "feed", html` required maxlength="2000" inputmode="url" spellcheck="false" placeholder="https://example.com/feed.xml"`, "RSS, Atom or JSON Feed.")}
    <fieldset class="field"${agentsError ? html` aria-describedby="feed-agents-error"` : ""}>
      <legend>Read by</legend>
      ${agentsError ? html`<p class="field-error" id="feed-agents-error">${agentsError}</p>` : ""}
      ${boxes}
    </fieldset>
    <div><button type="submit" class="btn btn-primary">Add feed</button></div>
  </form>`;
}

function sourceList(account: PageAccount, sources: SourceView[], now: number): Html {
  if (sources.length === 0)
    return html`<p class="muted">No sources yet: the inbox, research, corpdev, content and compliance agents need one.</p>`;
  const rows = sources.map((src): ItemRow => {
    const name = src.kind === "imap" ? `Mailbox ${src.username ?? ""} @ ${src.host ?? ""}` : (src.url ?? "feed");
    const detail = src.kind === "imap" ? `${src.folder ?? "INBOX"}, port ${src.port ?? ""}${src.tls ? ", TLS" : ""}` : "";
    return {
      name,
      id: html`${detail ? html`<br><span class="small">${detail}</span>` : ""}${src.problem ? html`<br><span class="field-error small">${src.problem}</span>` : ""}`,
      cells: [
        { value: src.agents.map(agentName).join(", ") },
        { value: ago(src.lastSuccessAt, now) },
        {
          value: src.lastFailureAt
            ? html`${ago(src.lastFailureAt, now)}<br><span class="small field-error">${src.lastFailureReason ?? ""}</span>`
            : html`<span class="muted">none</span>`,
        },
      ],
      createdAt: src.createdAt,
      lastUsedAt:
        [src.lastSuccessAt, src.lastFailureAt]
          .filter((t): t is string => t !== null)
          .sort()
          .at(-1) ?? null,
      revoke: {
        action: `${PATH}/delete`,
        field: ["id", src.id],
        question: `Delete ${name}? The agents stop reading it; ${src.kind === "imap" ? "the saved password is forgotten" : "the feed itself is untouched"}.`,
        verb: "Delete source",
        label: "Delete…",
      },
    };
  });
  return itemTable(account, now, {
    caption: "Sources of your organization",
    nameLabel: "Source",
    columns: ["Read by", "Last success", "Last failure"],
    createdLabel: "Added",
    rows,
  });
}

/** Field errors keyed by input name ("agents[0]" counts for "agents"), the first per field. */
function fieldErrorsOf(errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    if (path === "(body)") continue;
    const name = path.replace(/\[.*$/, "") || "kind";
    out[name] ??= name === "agents" && path === "agents" ? "Tick at least one agent." : message;
  }
  return out;
}

/** What was typed, to show again (never a password), and which form it was. */
function typedOf(form: URLSearchParams): Pick<SourcesView, "form" | "typed"> {
  const typed: Record<string, string | string[]> = {};
  for (const key of ["host", "port", "username", "folder", "url"]) typed[key] = form.get(key) ?? "";
  typed.tls = form.get("tls") ?? "";
  typed.agents = form.getAll("agents");
  return { form: form.get("kind") === "feed" ? "feed" : "imap", typed };
}

async function sourcesPage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession, view: SourcesView, status = 200): Promise<Response> {
  const account = accountOf(found);
  const title = "Sources";
  const { sources } = await runOperation(deps, c, found, listSourcesOp, {});
  const reading = new Set(sources.flatMap((x) => x.agents));
  const waiting = [MAILBOX_AGENT, ...FEED_AGENTS].filter((agent) => !reading.has(agent));
  const invalid = Object.keys(view.fieldErrors ?? {}).length > 0;
  const body = html`<h1>Sources</h1>
<p class="lead">What the agents read besides Crew's own data: a mailbox for the inbox agent, feeds for research, corpdev, content and compliance. Each run reads only what is new.</p>
${alertBox("error", view.error ?? (invalid ? "The source was not saved: correct the form below." : null))}
${alertBox("success", view.notice)}
<section class="card" aria-labelledby="list-h">
  <h2 id="list-h">Sources</h2>
  ${sourceList(account, sources, deps.clock.now())}
  ${waiting.length > 0 ? html`<p class="muted small" id="waiting">Without a source, these agents do not run with a model: ${waiting.join(", ")}.</p>` : ""}
</section>
<div class="grid-keys">
  <section class="card" aria-labelledby="imap-h">
    <h2 id="imap-h">Mailbox (inbox agent)</h2>
    ${mailboxForm(
      account,
      view,
      sources.some((x) => x.kind === "imap"),
    )}
  </section>
  <section class="card" aria-labelledby="feed-h">
    <h2 id="feed-h">Add a feed</h2>
    ${feedForm(account, view)}
  </section>
</div>`;
  return renderPage(c, { title, body, account, active: PATH }, status);
}

/** The form as the API's input: checkbox and empty optional fields mapped, the port a number. */
function inputOf(form: URLSearchParams): Record<string, unknown> {
  const kind = form.get("kind") ?? "";
  if (kind === "feed") return { kind, url: form.get("url") ?? "", agents: form.getAll("agents") };
  const raw: Record<string, unknown> = {
    kind,
    host: form.get("host") ?? "",
    tls: form.get("tls") === "on",
    username: form.get("username") ?? "",
    password: form.get("password") ?? "",
  };
  const port = (form.get("port") ?? "").trim();
  if (port) raw.port = /^\d+$/.test(port) ? Number(port) : port;
  const folder = (form.get("folder") ?? "").trim();
  if (folder) raw.folder = folder;
  return raw;
}

export function sourcesPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get(PATH, session(deps), owner(), async (c) => {
    const found = c.var.session;
    const notice =
      c.req.query("deleted") === "1"
        ? "Source deleted."
        : c.req.query("saved") === "1"
          ? "Source saved: the agents read it on their next run."
          : undefined;
    return sourcesPage(deps, c, found, { notice });
  });

  const rejected: PageRenderer = (deps, c, found, state, status) => {
    const errors = state?.errors ?? {};
    const view = { ...typedOf(state?.sent ?? new URLSearchParams()), fieldErrors: fieldErrorsOf(errors), error: errors["(body)"] };
    return sourcesPage(deps, c, found, view, status);
  };

  router.post(PATH, (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      try {
        await runOperation(deps, c, found, addSourceOp, inputOf(form));
      } catch (error) {
        // A refusal that is not about the input (e.g. the address unreachable) is said in the page.
        if (!(error instanceof ApiError) || error.status === 400 || error.code === "forbidden") throw error;
        return sourcesPage(deps, c, found, { ...typedOf(form), error: error.message }, error.status);
      }
      return `${PATH}?saved=1`;
    }),
  );

  router.post(`${PATH}/delete`, (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      try {
        await runOperation(deps, c, found, deleteSourceOp, { id: form.get("id") ?? "" });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code === "forbidden") throw error;
        return sourcesPage(deps, c, found, { error: "That source was not found: it may have been deleted already." }, 404);
      }
      return `${PATH}?deleted=1`;
    }),
  );

  return router;
}
