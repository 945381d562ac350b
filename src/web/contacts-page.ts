/**
 * /contacts (src/docs/notes/web-app.md): search by name, email or company, paginated by links, and the same
 * upsert as POST /api/mcp/contacts (matched by email, or by name among contacts without one).
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppDeps, AppEnv } from "../deps.ts";
import { RELATIONSHIPS } from "../domain.ts";
import { alertBox, csrfField, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { boundFields, doneNotice, emptyState, formAlert, pager, withQuery } from "../html/ui.ts";
import { listContactsOp } from "../operations/listings.ts";
import { upsertContactOp } from "../operations/writes.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { formInput, queryInput, runOperation } from "./run-operation.ts";

const DONE = { created: "Contact added.", updated: "Contact updated: it matched an existing one." };
const FIELDS = ["name", "email", "company", "role", "relationship", "notes"] as const;

const renderContacts: PageRenderer = async (deps, c, found, state, status = 200) => {
  const account = accountOf(found);
  const input = queryInput(c, ["q", "limit", "cursor"]);
  const page = await runOperation(deps, c, found, listContactsOp, input);
  const q = typeof input.q === "string" ? input.q : "";
  const base = { q: q || undefined, limit: input.limit ? String(input.limit) : undefined };
  const fields = boundFields(upsertContactOp.input, state, "ct");
  const rows = page.contacts.map(
    (ct) => html`<tr>
      <th scope="row" data-label="Name">${ct.name}</th>
      <td data-label="Email" class="mono">${ct.email ?? html`<span class="muted">—</span>`}</td>
      <td data-label="Company">${ct.company ?? html`<span class="muted">—</span>`}</td>
      <td data-label="Role">${ct.role ?? html`<span class="muted">—</span>`}</td>
      <td data-label="Relationship"><span class="badge">${ct.relationship}</span></td>
    </tr>`,
  );
  const body = html`<h1>Contacts</h1>
${alertBox("success", doneNotice(DONE, c.req.query("done")))}
${formAlert(state, FIELDS, "The contact was not saved: correct the fields marked below.")}
<div class="grid-side">
  <section aria-labelledby="list-h">
    <h2 id="list-h">People</h2>
    <a class="jump btn btn-small" href="#add-h">Add a contact</a>
    <form method="get" action="/contacts" class="search" role="search">
      <label for="contact-q">Search by name, email or company</label>
      <div class="copy-row"><input id="contact-q" name="q" type="search" value="${q}" maxlength="200"><button type="submit" class="btn">Search</button></div>
    </form>
    ${
      page.contacts.length
        ? html`<div class="table-wrap"><table class="table stack contacts">
      <caption class="sr-only">Contacts${q ? ` matching “${q}”` : ""}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Company</th><th scope="col">Role</th><th scope="col">Relationship</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`
        : q
          ? emptyState(`No contact matches “${q}”.`, html`<a href="/contacts">Show every contact</a>, or add this one with the form.`)
          : emptyState(
              "No contacts yet.",
              "Add the people you work with using the form; agents that read your mail add correspondents too.",
            )
    }
    ${pager(withQuery("/contacts", base, {}), page.nextCursor ? withQuery("/contacts", base, { cursor: page.nextCursor }) : null, !input.cursor)}
  </section>
  <section aria-labelledby="add-h" class="card">
    <h2 id="add-h">Add or update a contact</h2>
    <p class="small muted">A contact with the same email (or, without email, the same name) is updated instead: only the fields you fill in change.</p>
    <form method="post" action="/contacts" class="stack">
      ${csrfField(account)}
      ${fields.text("name", "Name")}
      ${fields.text("email", "Email (optional)", { type: "email" })}
      ${fields.text("company", "Company (optional)")}
      ${fields.text("role", "Role (optional)")}
      ${fields.select("relationship", "Relationship", "", [["", "Keep / contact"], ...RELATIONSHIPS.map((r) => [r, r] as [string, string])])}
      ${fields.area("notes", "Notes (optional)")}
      <button type="submit" class="btn btn-primary">Save contact</button>
    </form>
  </section>
</div>`;
  return renderPage(c, { title: "Contacts", body, account, active: "/contacts" }, status);
};

export function contactsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/contacts", session(deps), (c) => renderContacts(deps, c, c.var.session, null));
  router.post("/contacts", (c) =>
    handleForm(deps, c, renderContacts, async (found, form) => {
      const result = await runOperation(deps, c, found, upsertContactOp, formInput(form, FIELDS));
      return `/contacts?done=${result.action}`;
    }),
  );
  return router;
}
