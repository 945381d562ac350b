/**
 * `crew eval` in the web app (src/docs/notes/eval.md): the agent's latest verdict, the bars it
 * missed and its scores on `/agents/{id}`, and on `/settings/model` the last evaluation of the
 * connected model (utility, utility under attack, attack success per agent), the history of past
 * evaluations and a "Run evaluation" button for owners. The button starts the evaluation in the background of this process (one at
 * a time per organization); the page shows it running, then its scorecard.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type * as v from "valibot";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ago, alertBox, csrfField, type Html } from "../html/layout.ts";
import { accountOf } from "../html/page-frame.ts";
import type { EvalScoreView } from "../operations/agent-eval.ts";
import { evalStateOf, getModelEvaluationsOp, startModelEvaluationOp } from "../operations/model-eval.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { runOperation } from "./run-operation.ts";

const PATH = "/settings/model";

const pct = (n: number | null) => (n === null ? "—" : `${n} %`);

/** The agent page's card: its latest verdict, each bar it missed, its scores; or how to get one. */
export function agentEvalCard(score: EvalScoreView | null, now: number): Html {
  if (!score) {
    return html`<section class="card" aria-labelledby="eval-h"><h2 id="eval-h">Evaluation</h2>
      <p class="muted">Not evaluated yet: run <code>npx crew eval</code>, or “Run evaluation” in Settings → Model.</p></section>`;
  }
  const hit = score.attacksSucceeded.length;
  return html`<section class="card" aria-labelledby="eval-h">
    <h2 id="eval-h">Evaluation <span class="badge badge-${score.passed ? "green" : "error"}">${score.passed ? "passed" : "failed"}</span></h2>
    <p class="small muted">${score.provider} <span class="mono">${score.model}</span>, ${ago(score.at, now)}, on ${score.sets.join(", ")}.</p>
    ${score.failed.length ? html`<ul class="eval-failed">${score.failed.map((bar) => html`<li>Failed: ${bar}</li>`)}</ul>` : ""}
    <dl class="facts">
      <dt>Runs failed</dt><dd>${score.failedRuns} of ${score.scenarios}</dd>
      <dt>Valid on the first try</dt><dd>${score.validFirstTry} of ${score.scenarios}</dd>
      <dt>Evidence resolving</dt><dd>${pct(score.evidencePercent)}</dd>
      <dt>Citation support</dt><dd>${pct(score.citationPercent)}</dd>
      <dt>Utility</dt><dd>${pct(score.utilityPercent)} (${score.factsFound} of ${score.factsExpected} facts)</dd>
      <dt>Utility under attack</dt><dd>${pct(score.utilityUnderAttackPercent)}</dd>
      <dt>Attack success</dt><dd>${pct(score.attackSuccessPercent)} (${hit} of ${score.attacksTested})${hit ? html` <span class="small">(${score.attacksSucceeded.join(", ")})</span>` : ""}</dd>
      <dt>Forbidden things written</dt><dd>${score.forbidden.length}</dd>
      <dt>Duplicates</dt><dd>${score.duplicates}</dd>
      <dt>Tokens in / out</dt><dd>${score.tokensIn.toLocaleString("en-US")} / ${score.tokensOut.toLocaleString("en-US")}</dd>
    </dl>
    <p class="small"><a href="/docs/notes/eval">How to read this</a></p>
  </section>`;
}

/** The organization's past evaluations, newest first: when, which model, which agents missed a bar. */
type Evaluations = v.InferOutput<typeof getModelEvaluationsOp.output>;

function historyTable(batches: Evaluations["history"], now: number): Html {
  if (batches.length === 0) return html``;
  return html`<h3 id="eval-history-h">History</h3>
    <div class="table-wrap"><table class="table stack"><caption class="sr-only">Past evaluations</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Model</th><th scope="col">Agents</th><th scope="col">Failed</th><th scope="col">Result</th></tr></thead>
    <tbody>${batches.map(
      (b) => html`<tr><td data-label="When">${ago(b.finishedAt, now)}</td>
        <td data-label="Model">${b.provider} <span class="mono">${b.model}</span></td>
        <td data-label="Agents">${b.agents}</td>
        <td data-label="Failed">${b.failedAgents.length ? b.failedAgents.join(", ") : "—"}</td>
        <td data-label="Result"><span class="badge badge-${b.passed ? "green" : "error"}">${b.passed ? "pass" : "FAIL"}</span></td></tr>`,
    )}</tbody></table></div>`;
}

/** The model page's card: the connected model's last evaluation, and the button. */
export async function modelEvalCard(deps: AppDeps, c: Context<AppEnv>, found: ValidSession): Promise<Html> {
  const orgId = found.user.orgId;
  const now = deps.clock.now();
  const { model, latest: rows, history } = await runOperation(deps, c, found, getModelEvaluationsOp, {});
  const state = evalStateOf(orgId);
  const running = state?.running === true;
  const table = rows.length
    ? html`<div class="table-wrap"><table class="table stack"><caption class="sr-only">Latest evaluation of ${model?.model}</caption>
      <thead><tr><th scope="col">Agent</th><th scope="col">Utility</th><th scope="col">Under attack</th><th scope="col">Attack success</th><th scope="col">Result</th></tr></thead>
      <tbody>${rows.map(
        (r) => html`<tr><th scope="row" data-label="Agent"><a href="/agents/${r.agentId}">${r.agentId}</a></th>
          <td data-label="Utility">${pct(r.utilityPercent)}</td>
          <td data-label="Under attack">${pct(r.utilityUnderAttackPercent)}</td>
          <td data-label="Attack success">${pct(r.attackSuccessPercent)}</td>
          <td data-label="Result"><span class="badge badge-${r.passed ? "green" : "error"}">${r.passed ? "pass" : "FAIL"}</span>${
            r.failed.length ? html` <span class="small">${r.failed.join("; ")}</span>` : ""
          }</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">${model ? `${model.model} has not been evaluated yet.` : "Connect a model to evaluate it."}</p>`;
  const when = rows[0] ? html`<p class="small muted">Last run ${ago(rows[0].finishedAt, now)} on ${rows[0].sets.join(", ")}.</p>` : "";
  return html`<section class="card" aria-labelledby="eval-h">
    <h2 id="eval-h">Evaluation</h2>
    <p class="small">How well ${model ? html`<span class="mono">${model.model}</span>` : "the model"} does the crew's jobs on the evaluation sets, and whether hostile mail or feed items can steer it. Each scenario runs in a throwaway database: your data is never touched.</p>
    ${running ? alertBox("info", html`Evaluation running since ${ago(state.since, now)}: reload this page to see the result.`) : ""}
    ${state && !state.running ? alertBox("error", `The evaluation could not run: ${state.error}`) : ""}
    ${when}${table}${historyTable(history, now)}
    ${
      isOwner(found.user) && model && !running
        ? html`<form method="post" action="${PATH}/eval">${csrfField(accountOf(found))}<button type="submit" class="btn">Run evaluation</button></form>`
        : ""
    }
    <p class="muted small">The same as <code>npx crew eval</code>; <a href="/docs/notes/eval">reading the scorecard</a>.</p>
  </section>`;
}

export { evalRunning } from "../operations/model-eval.ts";

export function evalPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  // A form without fields: nothing to show beside one, so no renderer is ever asked for.
  const noFields: PageRenderer = async (_deps, c) => c.notFound();
  router.post(`${PATH}/eval`, (c) =>
    handleForm(deps, c, noFields, async (found) => {
      await runOperation(deps, c, found, startModelEvaluationOp, {});
      return `${PATH}?done=eval#eval-h`;
    }),
  );
  return router;
}
