/**
 * First-run setup (SPEC §1): while no user exists, the server prints a one-time link
 * `{base}/setup?token=…`; its page creates the owner (operator plan) in the default organization
 * and signs them in. Only the token's SHA-256 is stored. The link stops working once used — and
 * every other printed link with it, since setup is over once a user exists.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import * as v from "valibot";
import { hashPassword } from "../auth/passwords.ts";
import { startSession } from "../auth/sessions.ts";
import type { Config } from "../config.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { toFieldIssues } from "../http/validate.ts";
import { randomSecret, sha256Hex } from "../lib/random.ts";
import { Email } from "../operations/schemas.ts";
import type { Db } from "../store/db.ts";
import { getDefaultOrg } from "../store/orgs.ts";
import { claimSetup, insertSetupToken, isSetupTokenUsable } from "../store/setup-tokens.ts";
import { countUsers, createUser, EmailTakenError } from "../store/users.ts";
import { alertBox, messagePage, renderPage, seeOther } from "./layout.ts";
import { readForm } from "./pages.ts";

/** The setup URL to print at start, or null when a user exists already (nothing to set up). */
export async function ensureSetupLink(db: Db, config: Config, now: number): Promise<string | null> {
  if ((await countUsers(db)) > 0) return null;
  const token = randomSecret(32);
  await insertSetupToken(db, sha256Hex(token), now);
  return `${config.baseUrl}/setup?token=${token}`;
}

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
    if (!token || !(await isSetupTokenUsable(deps.db, sha256Hex(token)))) return usedLink(c);
    return setupPage(c, token);
  });

  router.post("/setup", async (c) => {
    const { db, clock, config } = deps;
    const crossSite = crossSiteReason(c.req.raw, config.baseUrl);
    if (crossSite) return messagePage(c, 403, "Setup refused", crossSite, { href: "/sign-in", label: "Go to sign-in" });
    const form = await readForm(c);
    const token = form.get("token") ?? "";
    const tokenHash = sha256Hex(token);
    if (!token || !(await isSetupTokenUsable(db, tokenHash))) return usedLink(c);

    const values = { name: form.get("name") ?? "", email: form.get("email") ?? "", password: form.get("password") ?? "" };
    const parsed = v.safeParse(OwnerForm, values, { abortEarly: false });
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const issue of toFieldIssues(parsed.issues)) errors[issue.path] ??= issue.message;
      return setupPage(c, token, values, errors, 400);
    }
    const passwordHash = await hashPassword(parsed.output.password);
    // Claimed only now, after the slow hash: a double-submitted form cannot make two owners.
    if (!(await claimSetup(db, tokenHash, clock.now()))) return usedLink(c);
    const org = await getDefaultOrg(db);
    if (!org) throw new Error("default organization missing");
    try {
      const user = await createUser(
        db,
        { orgId: org.id, email: parsed.output.email, name: parsed.output.name, passwordHash, plan: "operator" },
        clock.now(),
      );
      await startSession(deps, c, user.id);
    } catch (error) {
      if (error instanceof EmailTakenError) return usedLink(c);
      throw error;
    }
    return seeOther(c, "/dashboard");
  });

  return router;
}
