/**
 * /settings/users (src/docs/notes/web-app.md, owners): the organization's people, a form to add one (the answer
 * shows a one-time sign-in link to hand over), and role and plan changes. /welcome is where the
 * link leads: the new person chooses a password and is signed in; the link then stops working.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import { MIN_PASSWORD, Password } from "../auth/passwords.ts";
import type { ValidSession } from "../auth/sessions.ts";
import { startSession } from "../auth/sessions.ts";
import { signInLinkHolder, useSignInLink } from "../auth/sign-in-links.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { PLANS, ROLES, TIER_SENTENCES, type Tier } from "../domain.ts";
import { ago, alertBox, csrfField, type Html, messagePage, renderPage, seeOther } from "../html/layout.ts";
import { accountOf, readForm, session } from "../html/page-frame.ts";
import { boundFields, doneNotice, formAlert, formPart, rulesOf, textField } from "../html/ui.ts";
import { words } from "../html/words.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { createUserOp, deactivateUserOp, listUsersOp, updateUserOp } from "../operations/users.ts";
import { type FormState, handleForm } from "./form-flow.ts";
import { owner } from "./owner.ts";
import { formInput, judgeForm, runOperation } from "./run-operation.ts";

const TIERS: Tier[] = ["none", "read", "write"];

const USER_FIELDS = ["name", "email", "role", "plan"] as const;

function createdCard(link: string, email: string): Html {
  return html`<section class="card card-success" aria-labelledby="link-h">
  <h2 id="link-h">Send this sign-in link to ${email}</h2>
  <p>It works once, for 7 days: they choose their password there. It is shown only now.</p>
  <div class="copy-row"><label for="new-link" class="sr-only">One-time sign-in link</label><input id="new-link" value="${link}" readonly><button type="button" class="btn" data-copy="new-link" hidden>Copy<span class="sr-only"> the link</span></button></div>
</section>`;
}

async function renderUsers(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  state: FormState | null,
  status = 200,
  created: Html | string = "",
): Promise<Response> {
  const account = accountOf(found);
  const { users } = await runOperation(deps, c, found, listUsersOp, {});
  const now = deps.clock.now();
  // One message in one place (src/web/ui.ts formAlert): the add form's errors sit beside its
  // fields; a row's form (role, plan, deactivate) has no field of its own, so its error is the alert.
  const add = formPart(state, "email");
  const fields = boundFields(createUserOp.input, add, "user");
  const option = (value: string, current: string) =>
    html`<option value="${value}"${value === current ? html` selected` : ""}>${words(value)}</option>`;
  const rows = users.map(
    (u) => html`<tr>
      <th scope="row" data-label="Name">${u.name}${u.id === found.user.id ? html` <span class="muted small">(you)</span>` : ""}</th>
      <td data-label="Email" class="mono">${u.email}</td>
      <td data-label="Since" class="nowrap">${ago(u.createdAt, now)}</td>
      <td data-label="Access">${
        u.deactivatedAt
          ? html`<span class="badge badge-error">deactivated</span> <span class="small muted">${ago(u.deactivatedAt, now)}</span>`
          : html`<form method="post" action="/settings/users/${u.id}" class="inline-form">
          ${csrfField(account)}
          <label for="role-${u.id}" class="sr-only">Role of ${u.email}</label>
          <select id="role-${u.id}" name="role">${ROLES.map((r) => option(r, u.role))}</select>
          <label for="plan-${u.id}" class="sr-only">Plan of ${u.email}</label>
          <select id="plan-${u.id}" name="plan">${PLANS.map((p) => option(p, u.plan))}</select>
          <button type="submit" class="btn btn-small">Save<span class="sr-only"> ${u.email}</span></button>
        </form>
        ${
          u.id === found.user.id
            ? ""
            : html`<details class="confirm">
          <summary class="btn btn-small btn-danger-quiet">Deactivate…<span class="sr-only"> ${u.email}</span></summary>
          <form method="post" action="/settings/users/${u.id}/deactivate" class="confirm-box">
            ${csrfField(account)}
            <p>Deactivate ${u.email}? They can no longer sign in; their sessions, API keys and connected apps stop working at once. What they wrote stays.</p>
            <button type="submit" class="btn btn-danger">Deactivate<span class="sr-only"> ${u.email}</span></button>
          </form>
        </details>`
        }`
      }</td>
    </tr>`,
  );
  const body = html`<h1>Users</h1>
${alertBox("success", doneNotice({ updated: "User updated.", deactivated: "User deactivated." }, c.req.query("done")))}
${formAlert(state, add ? USER_FIELDS : [], "The user was not created: correct the form below.")}
${created}
<div class="grid-side">
  <section aria-labelledby="people-h">
    <h2 id="people-h">People in your organization</h2>
    <a class="jump btn btn-small" href="#add-h">Add a user</a>
    <p class="small muted">Owners manage the organization; members read everything and act on actions, contacts, handoffs and the feed. Plans cap API and MCP access, not the web app:</p>
    <ul class="small muted plans">${TIERS.map((t) => html`<li>${TIER_SENTENCES[t]}</li>`)}</ul>
    ${deps.config.oidc ? html`<p class="small muted">People who sign in with ${deps.config.oidc.name} for the first time get the plan <code>${deps.config.oidc.defaultPlan}</code> (<code>OIDC_DEFAULT_PLAN</code>).</p>` : ""}
    <div class="table-wrap"><table class="table stack items"><caption class="sr-only">Users</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Since</th><th scope="col">Access</th></tr></thead>
      <tbody>${rows}</tbody></table></div>
  </section>
  <section aria-labelledby="add-h" class="card">
    <h2 id="add-h">Add a user</h2>
    <form method="post" action="/settings/users" class="stack">
      ${csrfField(account)}
      ${fields.text("name", "Name")}
      ${fields.text("email", "Email", { type: "email" })}
      ${fields.select("role", "Role", "member")}
      ${fields.select(
        "plan",
        "Plan",
        "lite",
        PLANS.map((p) => [p, words(p)] as [string, string]),
      )}
      <button type="submit" class="btn btn-primary">Create user and sign-in link</button>
    </form>
  </section>
</div>`;
  return renderPage(c, { title: "Users", body, account, active: "/settings/users" }, status);
}

const unusableLink = (c: Context<AppEnv>) =>
  messagePage(c, 410, "Sign-in link not valid", "This link is unknown, expired or used already. Ask an owner for a new one, or sign in.", {
    href: "/sign-in",
    label: "Go to sign-in",
  });

function welcomePage(c: Context<AppEnv>, token: string, email: string, error?: string) {
  const body = html`<section class="card">
  <h1>Welcome to Crew</h1>
  <p>Choose a password for <strong>${email}</strong>; you will be signed in.</p>
  <form method="post" action="/welcome" class="stack" novalidate>
    <input type="hidden" name="token" value="${token}">
    <input type="text" name="username" value="${email}" autocomplete="username" aria-label="Email" hidden>
    ${textField("password", "password", {
      label: `Password (at least ${MIN_PASSWORD} characters)`,
      type: "password",
      autocomplete: "new-password",
      error,
      ...rulesOf(Password),
    })}
    <button type="submit" class="btn btn-primary btn-block">Set password and sign in</button>
  </form>
</section>`;
  return renderPage(c, { title: "Welcome", body, narrow: true }, error ? 400 : 200);
}

export function usersPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/settings/users", session(deps), owner(), (c) => renderUsers(deps, c, c.var.session, null));
  router.post("/settings/users", (c) =>
    handleForm(deps, c, renderUsers, async (found, form) => {
      const input = formInput(form, USER_FIELDS);
      const result = await runOperation(deps, c, found, createUserOp, input);
      return renderUsers(deps, c, found, null, 201, createdCard(result.link, input.email ?? ""));
    }),
  );
  router.post("/settings/users/:id", (c) =>
    handleForm(deps, c, renderUsers, async (found, form) => {
      await runOperation(deps, c, found, updateUserOp, { ...formInput(form, ["role", "plan"]), id: c.req.param("id") });
      return "/settings/users?done=updated";
    }),
  );

  router.post("/settings/users/:id/deactivate", (c) =>
    handleForm(deps, c, renderUsers, async (found) => {
      await runOperation(deps, c, found, deactivateUserOp, { id: c.req.param("id") });
      return "/settings/users?done=deactivated";
    }),
  );

  router.get("/welcome", async (c) => {
    const token = c.req.query("token") ?? "";
    const user = await signInLinkHolder(deps.db, token, "welcome", deps.clock.now());
    return user ? welcomePage(c, token, user.email) : unusableLink(c);
  });
  router.post("/welcome", async (c) => {
    const crossSite = crossSiteReason(c.req.raw, deps.config.baseUrl);
    if (crossSite) return messagePage(c, 403, "Form refused", crossSite, { href: "/sign-in", label: "Go to sign-in" });
    const form = await readForm(c);
    const token = form.get("token") ?? "";
    const holder = await signInLinkHolder(deps.db, token, "welcome", deps.clock.now());
    if (!holder) return unusableLink(c);
    const judged = judgeForm(Password, form.get("password") ?? "");
    if ("errors" in judged) return welcomePage(c, token, holder.email, Object.values(judged.errors)[0]);
    const user = await useSignInLink(deps.db, token, "welcome", judged.output, deps.clock);
    if (!user) return unusableLink(c);
    await startSession(deps, c, user.id);
    return seeOther(c, "/dashboard");
  });
  return router;
}
