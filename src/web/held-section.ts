/**
 * "Held for review (N)" on the dashboard (src/docs/notes/prompt-injection.md#held): what runs wrote
 * from outside input that shows signs of an attack, with the reason and the evidence it rests on;
 * owners release or dismiss each (the reviewHeld operation, as POST /api/mcp/held/{id}).
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import type { Evidence } from "../domain.ts";
import { csrfField, type Html, type PageAccount } from "../html/layout.ts";
import { priorityBadge } from "../html/ui.ts";
import { type listHeldOp, reviewHeldOp } from "../operations/held.ts";
import { backTo, handleForm, type PageRenderer } from "./form-flow.ts";
import { runOperation } from "./run-operation.ts";
import { basedOn } from "./suggestions-page.ts";

type Held = v.InferOutput<(typeof listHeldOp)["output"]>;

interface HeldItem {
  id: string;
  kind: string;
  title: string;
  priority?: string;
  reason: string | null;
  evidence: Evidence[];
}

const itemsOf = (held: Held): HeldItem[] => [
  ...held.actions.map((a) => ({
    id: a.id,
    kind: "Action",
    title: a.title,
    priority: a.priority,
    reason: a.heldReason,
    evidence: a.evidence,
  })),
  ...held.suggestions.map((s) => ({
    id: s.id,
    kind: "Suggestion",
    title: s.title,
    priority: s.priority,
    reason: s.heldReason,
    evidence: s.evidence,
  })),
  ...held.insights.map((i) => ({ id: i.id, kind: "Insight", title: i.title, reason: i.heldReason, evidence: i.evidence })),
  ...held.handoffs.map((h) => ({
    id: h.id,
    kind: "Handoff",
    title: h.title,
    priority: h.priority,
    reason: h.heldReason,
    evidence: h.evidence,
  })),
];

/** The dashboard's section; nothing when nothing is held. */
export function heldSection(account: PageAccount, held: Held, owner: boolean): Html | string {
  if (held.count === 0) return "";
  const items = itemsOf(held).map(
    (h) => html`<li class="held-item" id="${h.id}">
      <div class="action-head">${h.priority ? priorityBadge(h.priority as "high") : ""} <span class="muted small">${h.kind}</span> <span class="action-title">${h.title}</span></div>
      <p class="small"><strong>Why it is held:</strong> ${h.reason ?? "signs of an attack in its outside evidence"}.</p>
      ${basedOn(h.evidence, h.id)}
      ${
        owner
          ? html`<form method="post" action="/held/review" class="inline-form">
        ${csrfField(account)}
        <input type="hidden" name="back" value="/dashboard#held-h">
        <input type="hidden" name="id" value="${h.id}">
        <button type="submit" class="btn btn-small" name="decision" value="release">Release<span class="sr-only">: “${h.title}”</span></button>
        <button type="submit" class="btn btn-small btn-quiet" name="decision" value="dismiss">Dismiss<span class="sr-only">: “${h.title}”</span></button>
      </form>`
          : html`<p class="small muted">An owner releases or dismisses it.</p>`
      }
    </li>`,
  );
  return html`<section aria-labelledby="held-h" class="card held">
  <h2 id="held-h">Held for review (${held.count})</h2>
  <p class="small muted">Written from outside input that shows signs of an attack. Nothing here is in the queue, the briefing or a webhook until an owner releases it.</p>
  <ul class="action-list">${items}</ul>
</section>`;
}

export function heldRoutes(deps: AppDeps, render: PageRenderer): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.post("/held/review", (c) =>
    handleForm(deps, c, render, async (found, form) => {
      const decision = form.get("decision") === "dismiss" ? "dismiss" : "release";
      await runOperation(deps, c, found, reviewHeldOp, { id: form.get("id") ?? "", decision });
      return backTo(form, "/dashboard");
    }),
  );
  return router;
}
