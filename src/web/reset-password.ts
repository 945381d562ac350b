/**
 * Password reset links (src/docs/notes/operating.md#administration, `crew user reset-password --email E`): `{base}/reset-password?token=…`
 * shows a form for a new password; submitting it sets the password, uses the link up, ends the
 * user's other sessions and signs them in. The link works once and for one hour; only its SHA-256
 * is stored.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import { MIN_PASSWORD, Password } from "../auth/passwords.ts";
import { startSession } from "../auth/sessions.ts";
import { signInLinkHolder, useSignInLink } from "../auth/sign-in-links.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { messagePage, renderPage, seeOther } from "../html/layout.ts";
import { readForm } from "../html/page-frame.ts";
import { rulesOf, textField } from "../html/ui.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { judgeForm } from "./run-operation.ts";

const unusable = (c: Context<AppEnv>) =>
  messagePage(c, 410, "Reset link not valid", "This password reset link is unknown, used or expired. Ask an owner for a new one.", {
    href: "/sign-in",
    label: "Go to sign-in",
  });

function resetPage(c: Context<AppEnv>, token: string, error: string | null = null, status = 200) {
  const body = html`<section class="card">
  <h1>Choose a new password</h1>
  <form method="post" action="/reset-password" class="stack" novalidate>
    <input type="hidden" name="token" value="${token}">
    ${textField("password", "password", {
      label: `New password (at least ${MIN_PASSWORD} characters)`,
      type: "password",
      autocomplete: "new-password",
      error: error ?? undefined,
      ...rulesOf(Password),
    })}
    <button type="submit" class="btn btn-primary btn-block">Set password and sign in</button>
  </form>
</section>`;
  return renderPage(c, { title: "Reset password", body, narrow: true }, status);
}

export function resetPasswordRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/reset-password", async (c) => {
    const { db, clock } = deps;
    const token = c.req.query("token") ?? "";
    if (!(await signInLinkHolder(db, token, "reset", clock.now()))) return unusable(c);
    return resetPage(c, token);
  });

  router.post("/reset-password", async (c) => {
    const { db, clock, config } = deps;
    const crossSite = crossSiteReason(c.req.raw, config.baseUrl);
    if (crossSite) return messagePage(c, 403, "Reset refused", crossSite, { href: "/sign-in", label: "Go to sign-in" });
    const form = await readForm(c);
    const token = form.get("token") ?? "";
    if (!(await signInLinkHolder(db, token, "reset", clock.now()))) return unusable(c);
    const judged = judgeForm(Password, form.get("password") ?? "");
    if ("errors" in judged) return resetPage(c, token, Object.values(judged.errors)[0] ?? null, 400);
    const used = await useSignInLink(db, token, "reset", judged.output, clock);
    if (!used) return unusable(c);
    await startSession(deps, c, used.id);
    return seeOther(c, "/dashboard");
  });

  return router;
}
