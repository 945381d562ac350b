/**
 * /evidence/mail?record=…&ref=… (src/docs/notes/web-app.md#evidence-you-can-open): Crew's page for a
 * mail a record cites, opened from its "Based on". Read through the getCitedMail operation.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ago, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { getCitedMailOp } from "../operations/cited-mail.ts";
import { queryInput, runOperation } from "./run-operation.ts";

/** Where the citing record is shown. */
const PAGE_OF: Record<string, { href: (id: string) => string; what: string }> = {
  suggestion: { href: (id) => `/suggestions#${id}`, what: "Suggestion" },
  action: { href: (id) => `/actions?show=all#${id}`, what: "Action" },
  insight: { href: (id) => `/feed#${id}`, what: "Insight" },
  handoff: { href: (id) => `/handoffs#${id}`, what: "Handoff" },
};

export function citedMailRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/evidence/mail", session(deps), async (c) => {
    const found = c.var.session;
    const mail = await runOperation(deps, c, found, getCitedMailOp, queryInput(c, ["record", "ref"]));
    const page = PAGE_OF[mail.record.kind] ?? { href: () => "/dashboard", what: "Record" };
    const body = html`<p class="small muted"><a href="${page.href(mail.record.id)}">${page.what}: ${mail.record.title}</a></p>
<article class="card mail-view">
  <h1>${mail.subject}</h1>
  <dl class="facts">
    <dt>From</dt><dd class="mail-from">${mail.from ?? html`<span class="muted">not recorded</span>`}</dd>
    <dt>Cited</dt><dd>${ago(Date.parse(mail.record.createdAt), deps.clock.now())}, by the record above</dd>
  </dl>
  <h2 class="small-heading">What the agent read</h2>
  ${mail.excerpt ? html`<blockquote class="mail-excerpt">${mail.excerpt}</blockquote>` : html`<p class="muted">No text was stored with this mail.</p>`}
  <p class="small muted">Crew keeps the excerpt it read, not the whole mail.${
    mail.url ? html` <a href="${mail.url}" rel="noopener noreferrer">Open it in your mail</a>.` : " Open your mailbox to read all of it."
  }</p>
</article>`;
    return renderPage(c, { title: mail.subject, body, account: accountOf(found) });
  });
  return router;
}
