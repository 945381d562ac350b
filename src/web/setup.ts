/**
 * First-run setup (SPEC §1): while no user exists, the server prints a one-time link
 * `{base}/setup?token=…`; its page creates the owner (operator plan) in the default organization
 * and signs them in. Only the token's SHA-256 is stored. The link stops working once used — and
 * every other printed link with it, since setup is over once a user exists.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import * as v from "valibot";
import { startSession } from "../auth/sessions.ts";
import { createOwner, isSetupLinkUsable } from "../auth/setup.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { alertBox, messagePage, renderPage, seeOther } from "../html/layout.ts";
import { readForm } from "../html/page-frame.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { toFieldIssues } from "../http/validate.ts";
import { Email } from "../operations/schemas.ts";
import { recordAudit } from "../store/audit.ts";

export const MIN_PASSWORD = 8;

const OwnerForm = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, "Enter your name."), v.maxLength(200, "At most 200 characters.")),
  email: v.pipe(v.string(), v.minLength(1, "Enter your email."), Email),
  password: v.pipe(
    v.string(),
    v.minLength(MIN_PASSWORD, `Use at least ${MIN_PASSWORD} characters.`),
    v.maxLength(1024, "At most 1024 characters."),
  ),
});

const usedLink = (c: Context<AppEnv>) =>
  messagePage(c, 410, "Setup link not valid", "This setup link is unknown or has been used already. Sign in instead.", {
    href: "/sign-in",
    label: "Go to sign-in",
  });

function setupPage(
  c: Context<AppEnv>,
  token: string,
  values: { name?: string; email?: string } = {},
  errors: Record<string, string> = {},
  status = 200,
) {
  const field = (id: "name" | "email" | "password", label: string, input: ReturnType<typeof html>) => html`<div class="field">
      <label for="${id}">${label}</label>
      ${input}
      ${errors[id] ? html`<p class="field-error" id="${id}-error">${errors[id]}</p>` : ""}
    </div>`;
  const invalid = (id: string) => (errors[id] ? html` aria-invalid="true" aria-describedby="${id}-error"` : "");
  const body = html`<section class="card">
  <h1>Set up Crew</h1>
  <p>Create the owner account. It gets the <strong>operator</strong> plan: every endpoint, read and write.</p>
  ${alertBox("error", Object.keys(errors).length ? "Please correct the fields below." : null)}
  <form method="post" action="/setup" class="stack" novalidate>
    <input type="hidden" name="token" value="${token}">
    ${field("name", "Your name", html`<input id="name" name="name" autocomplete="name" required maxlength="200" value="${values.name ?? ""}"${invalid("name")}>`)}
    ${field("email", "Email", html`<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${values.email ?? ""}"${invalid("email")}>`)}
    ${field("password", `Password (at least ${MIN_PASSWORD} characters)`, html`<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD}"${invalid("password")}>`)}
    <button type="submit" class="btn btn-primary btn-block">Create owner account</button>
  </form>
</section>`;
  return renderPage(c, { title: "Set up Crew", body, narrow: true }, status);
}

export function setupRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/setup", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!(await isSetupLinkUsable(deps.db, token))) return usedLink(c);
    return setupPage(c, token);
  });

  router.post("/setup", async (c) => {
    const { db, clock, config } = deps;
    const crossSite = crossSiteReason(c.req.raw, config.baseUrl);
    if (crossSite) return messagePage(c, 403, "Setup refused", crossSite, { href: "/sign-in", label: "Go to sign-in" });
    const form = await readForm(c);
    const token = form.get("token") ?? "";
    if (!(await isSetupLinkUsable(db, token))) return usedLink(c);

    const values = { name: form.get("name") ?? "", email: form.get("email") ?? "", password: form.get("password") ?? "" };
    const parsed = v.safeParse(OwnerForm, values, { abortEarly: false });
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const issue of toFieldIssues(parsed.issues)) errors[issue.path] ??= issue.message;
      return setupPage(c, token, values, errors, 400);
    }
    const user = await createOwner(db, token, parsed.output, clock);
    if (!user) return usedLink(c);
    await recordAudit(db, user.orgId, "user.created", { kind: "user", userId: user.id }, clock.now(), user.email, { via: "setup" });
    await startSession(deps, c, user.id);
    return seeOther(c, "/dashboard");
  });

  return router;
}
