/**
 * First-run setup (src/docs/notes/running.md#first-start): while no user exists, the server prints a one-time link
 * `{base}/setup?token=…`; its page creates the owner (operator plan) in the default organization
 * and signs them in. Only the token's SHA-256 is stored. The link stops working once used — and
 * every other printed link with it, since setup is over once a user exists.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import * as v from "valibot";
import { MIN_PASSWORD, Password } from "../auth/passwords.ts";
import { startSession } from "../auth/sessions.ts";
import { createOwner, isSetupLinkUsable } from "../auth/setup.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { messagePage, renderPage, seeOther } from "../html/layout.ts";
import { readForm } from "../html/page-frame.ts";
import { fieldRules, formAlert, textField } from "../html/ui.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { Email } from "../operations/schemas.ts";
import { judgeForm } from "./run-operation.ts";

const OwnerForm = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, "Enter your name."), v.maxLength(200, "At most 200 characters.")),
  email: v.pipe(v.string(), v.minLength(1, "Enter your email."), Email),
  password: Password,
});
const rules = (name: string) => fieldRules(OwnerForm, name);

const usedLink = (c: Context<AppEnv>) =>
  messagePage(c, 410, "Setup link not valid", "This setup link is unknown or has been used already. Sign in instead.", {
    href: "/sign-in",
    label: "Go to sign-in",
  });

function setupPage(
  c: Context<AppEnv>,
  token: string,
  values: Record<string, string> = {},
  errors: Record<string, string> = {},
  status = 200,
) {
  const body = html`<section class="card">
  <h1>Set up Crew</h1>
  <p>Create the owner account. It gets the <strong>operator</strong> plan: every endpoint, read and write.</p>
  ${formAlert(Object.keys(errors).length ? { errors, values } : null, ["name", "email", "password"], "Please correct the fields below.")}
  <form method="post" action="/setup" class="stack" novalidate>
    <input type="hidden" name="token" value="${token}">
    ${textField("name", "name", { label: "Your name", autocomplete: "name", value: values.name, error: errors.name, ...rules("name") })}
    ${textField("email", "email", { label: "Email", type: "email", autocomplete: "username", value: values.email, error: errors.email, ...rules("email") })}
    ${textField("password", "password", { label: `Password (at least ${MIN_PASSWORD} characters)`, type: "password", autocomplete: "new-password", error: errors.password, ...rules("password") })}
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
    const judged = judgeForm(OwnerForm, values);
    if ("errors" in judged) return setupPage(c, token, { name: values.name, email: values.email }, judged.errors, 400);
    const user = await createOwner(db, token, judged.output, clock);
    if (!user) return usedLink(c);
    await startSession(deps, c, user.id);
    return seeOther(c, "/dashboard");
  });

  return router;
}
