/**
 * Owners' model pages (src/docs/notes/web-app.md). `/settings/model`: connect a language model (provider, base
 * URL, model, API key stored sealed, daily token budget), "Test connection" (one tiny call; the
 * answer or the exact error), and a note when the environment's CREW_MODEL_* wins. `/agents/{id}`:
 * an agent's job, what it reads and writes, its instructions (replaceable per organization), its
 * runs with tokens, and "Run now". Plain CSRF-checked forms calling the same functions as
 * /api/integrations/model and PATCH /api/agents/{id}.
 */

import { type Context, Hono } from "hono";
import { html } from "hono/html";
import { spendingTotals } from "../agents/budgets.ts";
import { jobOf } from "../agents/jobs.ts";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { isAgentId } from "../domain.ts";
import { alertBox, csrfField, type Html, messagePage, type PageAccount, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { fieldRules } from "../html/ui.ts";
import { describeStructured, type ModelStatus, modelStatus, type TestOutcome } from "../integrations/model/settings.ts";
import { type AgentView, updateAgentOp } from "../operations/agent-runs.ts";
import { ModelSettingsInput, saveModelIntegrationOp, testModelIntegrationOp } from "../operations/model.ts";
import { modelEvalCard } from "./eval-page.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { owner } from "./owner.ts";
import { runOperation } from "./run-operation.ts";

const PATH = "/settings/model";
const rule = (name: string) => fieldRules(ModelSettingsInput, name);
type Field = "provider" | "baseUrl" | "model" | "apiKey" | "dailyTokens";

/** Who may change the model and the instructions: the organization's owners (src/docs/notes/web-app.md). */
export const canManage = (found: ValidSession): boolean => isOwner(found.user);

interface View {
  error?: string;
  notice?: string;
  test?: TestOutcome;
  fieldErrors?: Partial<Record<Field, string>>;
  typed?: Partial<Record<Exclude<Field, "apiKey">, string>>;
}

function statusCard(s: ModelStatus): Html {
  const envNote =
    s.source === "environment"
      ? alertBox(
          "info",
          html`The model is set by the environment (<code>CREW_MODEL_*</code>), which wins over the settings below; they apply once it is removed.`,
        )
      : "";
  return html`<section class="card" aria-labelledby="model-h">
    <h2 id="model-h">Model in use</h2>
    ${envNote}
    ${
      s.connected
        ? html`<dl class="facts">
      <dt>Provider</dt><dd>${s.provider}</dd>
      <dt>Model</dt><dd class="mono">${s.model}</dd>
      <dt>Base URL</dt><dd class="mono">${s.baseUrl ?? html`<span class="muted">provider default</span>`}</dd>
      <dt>API key</dt><dd>${s.hasApiKey ? "set (never shown)" : "none"}</dd>
      <dt>From</dt><dd>${s.source}</dd>
    </dl>`
        : html`<p class="muted">No model connected: the model-backed agents do not run. Their dashboard summary says “Needs a model”.</p>`
    }
    <p>Tokens today: <strong>${s.tokensToday.toLocaleString("en-US")}</strong> of ${s.dailyTokens.toLocaleString("en-US")} (resets at midnight UTC).</p>
  </section>`;
}

function testCard(account: PageAccount, test: TestOutcome | undefined): Html {
  return html`<section class="card" aria-labelledby="test-h">
    <h2 id="test-h">Test connection</h2>
    ${test ? (test.ok ? alertBox(test.structured.ok ? "success" : "info", `${test.model} answered “${test.answer}” (${test.tokensIn} tokens in, ${test.tokensOut} out). ${describeStructured(test)}`) : alertBox("error", test.error)) : ""}
    <form method="post" action="${PATH}/test">${csrfField(account)}<button type="submit" class="btn">Test connection</button></form>
    <p class="muted small">One tiny call to the model in use; the same as <code>npx crew model test</code>.</p>
  </section>`;
}

function settingsForm(account: PageAccount, view: View, s: ModelStatus, saved: boolean): Html {
  const e = view.fieldErrors ?? {};
  const t = view.typed ?? {};
  const value = (f: Exclude<Field, "apiKey">, fallback: string | null | undefined) => t[f] ?? fallback ?? "";
  const err = (f: Field) => (e[f] ? html`<p class="field-error" id="m-${f}-error">${e[f]}</p>` : "");
  const aria = (f: Field) => (e[f] ? html` aria-invalid="true" aria-describedby="m-${f}-error"` : "");
  const provider = value("provider", s.source === "settings" ? s.provider : "openai-compatible");
  return html`<section class="card" aria-labelledby="settings-h">
    <h2 id="settings-h">Settings</h2>
    <form method="post" action="${PATH}" class="stack">
      ${csrfField(account)}
      <div class="field">
        <label for="m-provider">Provider</label>
        <select id="m-provider" name="provider"${aria("provider")}>
          ${(rule("provider").options ?? []).map((p) => html`<option value="${p}"${p === provider ? " selected" : ""}>${p}</option>`)}
        </select>
        ${err("provider")}
        <p class="muted small">openai-compatible: any <code>/v1/chat/completions</code> endpoint — Ollama, llama.cpp server, vLLM, LM Studio, OpenRouter, OpenAI.</p>
      </div>
      <div class="field">
        <label for="m-baseUrl">Base URL</label>
        <input id="m-baseUrl" name="baseUrl" maxlength="${rule("baseUrl").maxlength}" spellcheck="false" inputmode="url" placeholder="http://localhost:11434/v1" value="${value("baseUrl", s.source === "settings" ? s.baseUrl : "")}"${aria("baseUrl")}>
        ${err("baseUrl")}
        <p class="muted small">A model on this machine or your own network (such as Ollama on localhost) is refused here unless the server runs with <code>ALLOW_PRIVATE_TARGETS=true</code>; or set <code>CREW_MODEL_PROVIDER</code>, <code>CREW_MODEL_BASE_URL</code> and <code>CREW_MODEL</code> in the server's environment, which is trusted.</p>
      </div>
      <div class="field">
        <label for="m-model">Model</label>
        <input id="m-model" name="model" required maxlength="${rule("model").maxlength}" spellcheck="false" placeholder="llama3.2" value="${value("model", s.source === "settings" ? s.model : "")}"${aria("model")}>
        ${err("model")}
      </div>
      <div class="field">
        <label for="m-apiKey">API key</label>
        <input id="m-apiKey" name="apiKey" type="password" maxlength="${rule("apiKey").maxlength}" autocomplete="off"${aria("apiKey")}>
        ${err("apiKey")}
        <p class="muted small">${saved && s.hasApiKey ? "A key is saved; leave this empty to keep it. " : ""}Stored encrypted, never shown again. Local models need none.</p>
      </div>
      <div class="field">
        <label for="m-dailyTokens">Daily token budget</label>
        <input id="m-dailyTokens" name="dailyTokens" inputmode="numeric" placeholder="1000000" value="${value("dailyTokens", "")}"${aria("dailyTokens")}>
        ${err("dailyTokens")}
        <p class="muted small">Runs past it are skipped until midnight UTC. Empty: 1,000,000 (or CREW_MODEL_DAILY_TOKENS).</p>
      </div>
      <div><button type="submit" class="btn btn-primary">Save</button></div>
    </form>
  </section>`;
}

/** Tokens and their estimated cost today and this month (CREW_MODEL_PRICE_INPUT/_OUTPUT). */
function spendingCard(t: Awaited<ReturnType<typeof spendingTotals>>): Html {
  const dollars = (x: number | null) =>
    x === null
      ? html`<span class="muted">set <code>CREW_MODEL_PRICE_INPUT</code> and <code>CREW_MODEL_PRICE_OUTPUT</code></span>`
      : `$${x.toFixed(2)}`;
  const row = (label: string, p: typeof t.today) =>
    html`<tr><th scope="row" data-label="Period (UTC)">${label}</th><td data-label="Tokens in">${p.tokensIn.toLocaleString("en-US")}</td><td data-label="Tokens out">${p.tokensOut.toLocaleString("en-US")}</td><td data-label="Estimated cost" class="cost">${dollars(p.costUsd)}</td></tr>`;
  return html`<section class="card" aria-labelledby="spend-h">
    <h2 id="spend-h">Spending</h2>
    <div class="table-wrap"><table class="table stack"><thead><tr><th scope="col">UTC</th><th scope="col">Tokens in</th><th scope="col">Tokens out</th><th scope="col">Estimated cost</th></tr></thead>
    <tbody>${row("Today", t.today)}${row("This month", t.month)}</tbody></table></div>
  </section>`;
}

async function modelPage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession, view: View, status = 200) {
  const account = accountOf(found);
  const s = await modelStatus(deps, found.user.orgId);
  const spending = await spendingTotals(deps.db, deps.config, found.user.orgId, deps.clock.now());
  const body = html`<h1>Model</h1>
<p class="lead">The language model the crew works with. Which data each agent sends to it is listed on <a href="/docs">the docs</a> (“Model-backed agents”); mail and feed text is passed as data, never as instructions.</p>
${alertBox("error", view.error)}
${alertBox("success", view.notice)}
<div class="grid-keys">
  ${statusCard(s)}
  ${spendingCard(spending)}
  ${testCard(account, view.test)}
</div>
${settingsForm(account, view, s, s.source === "settings")}
${await modelEvalCard(deps, c, found)}`;
  return renderPage(c, { title: "Model", body, account, active: PATH }, status);
}

/** The agent page's Instructions card (src/web/agent-page.ts): the system prompt of its model-backed runs. */
export function instructionsSection(found: ValidSession, agent: AgentView): Html | string {
  const agentId = agent.id;
  const job = jobOf(agentId);
  if (job.runner !== "model" && agentId !== "standup" && agentId !== "briefing") return "";
  const reads = Object.entries(job.reads)
    .filter(([k, on]) => k !== "source" && on)
    .map(([k]) => k)
    .concat(job.reads.source ? [`${job.reads.source} (source)`] : []);
  const facts = html`<dl class="facts">
    <dt>Reads</dt><dd>${reads.join(", ") || "—"} (at most ${job.limits.sourceItems} source items, ${job.limits.contacts} contacts, ${job.limits.insights} insights)</dd>
    <dt>Writes</dt><dd>summary${job.writes.length ? `, ${job.writes.join(", ")}` : ""}</dd>
  </dl>`;
  if (!canManage(found))
    return html`<section class="card" aria-labelledby="instr-h"><h2 id="instr-h">Instructions</h2>${facts}<p class="small muted">Owners can change its instructions.</p></section>`;
  return html`<section class="card" aria-labelledby="instr-h">
  <h2 id="instr-h">Instructions</h2>
  ${facts}
  <p class="muted small">${agent.customInstructions ? "Replaced for this organization." : "The default."} The system prompt of its model-backed runs.</p>
  <form method="post" action="/agents/${agentId}/instructions" class="stack">
    ${csrfField(accountOf(found))}
    <label for="instructions">Instructions</label>
    <textarea id="instructions" name="instructions" rows="12" maxlength="20000">${agent.instructions}</textarea>
    <div><button type="submit" class="btn">Save instructions</button> <button type="submit" name="reset" value="1" class="btn btn-danger-quiet">Back to the default</button></div>
  </form>
</section>`;
}

const NOTICES: Record<string, string> = {
  saved: "Model settings saved.",
  instructions: "Instructions saved.",
  reset: "Back to the default instructions.",
  eval: "Evaluation started: it runs in the background; reload this page to see the result.",
};

/**
 * The last connection test per organization, so the test form answers 303 and its result is a
 * page to reload (post/redirect/get). In memory: a restart forgets it, and the test is one click.
 */
const lastTests = new Map<string, TestOutcome>();

export function modelPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get(PATH, session(deps), owner(), async (c) => {
    const found = c.var.session;
    const done = c.req.query("done") ?? "";
    const test = done === "tested" ? lastTests.get(found.user.orgId) : undefined;
    return modelPage(deps, c, found, { notice: NOTICES[done], test });
  });

  const rejected: PageRenderer = (deps, c, found, state, status) => {
    const errors = state?.errors ?? {};
    const fieldErrors: View["fieldErrors"] = {};
    for (const [path, message] of Object.entries(errors)) if (path !== "(body)") fieldErrors[path as Field] ??= message;
    const typed = { provider: "", baseUrl: "", model: "", dailyTokens: "", ...state?.values };
    const { provider, baseUrl, model, dailyTokens } = typed;
    const error = errors["(body)"] ?? "The settings were not saved: correct the form below.";
    return modelPage(deps, c, found, { error, fieldErrors, typed: { provider, baseUrl, model, dailyTokens } }, status);
  };

  router.post(PATH, (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      const text = (name: string) => form.get(name) ?? "";
      const budget = text("dailyTokens").trim();
      await runOperation(deps, c, found, saveModelIntegrationOp, {
        provider: text("provider"),
        baseUrl: text("baseUrl"),
        model: text("model"),
        ...(text("apiKey") ? { apiKey: text("apiKey") } : {}),
        dailyTokens: budget === "" ? null : /^\d+$/.test(budget) ? Number(budget) : budget,
      });
      return `${PATH}?done=saved`;
    }),
  );

  router.post(`${PATH}/test`, (c) =>
    handleForm(deps, c, rejected, async (found) => {
      lastTests.set(found.user.orgId, await runOperation(deps, c, found, testModelIntegrationOp, {}));
      return `${PATH}?done=tested#test-h`;
    }),
  );

  // The instructions form has no field to show an error beside: the refusal is a page of its own.
  const instructionsRefused: PageRenderer = async (_deps, c, found) =>
    messagePage(
      c,
      400,
      "Instructions not saved",
      "Instructions must be 1 to 20000 characters; use “Back to the default” to clear them.",
      { href: `/agents/${c.req.param("id")}`, label: "Back to the agent" },
      accountOf(found),
    );

  router.post("/agents/:id/instructions", (c) =>
    handleForm(deps, c, instructionsRefused, async (found, form) => {
      const id = c.req.param("id");
      if (!isAgentId(id)) return c.notFound();
      const reset = form.get("reset") === "1";
      await runOperation(deps, c, found, updateAgentOp, { id, instructions: reset ? null : (form.get("instructions") ?? "") });
      return `/agents/${id}?done=${reset ? "reset" : "instructions"}`;
    }),
  );

  return router;
}
