/**
 * Password reset links (SPEC §14, `crew user reset-password --email E`): `{base}/reset-password?token=…`
 * shows a form for a new password; submitting it sets the password, uses the link up, ends the
 * user's other sessions and signs them in. The link works once and for one hour; only its SHA-256
 * is stored.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import { startSession } from "../auth/sessions.ts";
import { signInLinkHolder, useSignInLink } from "../auth/sign-in-links.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { alertBox, messagePage, renderPage, seeOther } from "../html/layout.ts";
import { readForm } from "../html/page-frame.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { recordAudit } from "../store/audit.ts";
import { MIN_PASSWORD } from "./setup.ts";

const unusable = (c: Context<AppEnv>) =>
  messagePage(c, 410, "Reset link not valid", "This password reset link is unknown, used or expired. Ask an owner for a new one.", {
    href: "/sign-in",
    label: "Go to sign-in",
  });

function resetPage(c: Context<AppEnv>, token: string, error: string | null = null, status = 200) {
  const body = html`<section class="card">
  <h1>Choose a new password</h1>
  ${alertBox("error", error)}
  <form method="post" action="/reset-password" class="stack" novalidate>
    <input type="hidden" name="token" value="${token}">
    <div class="field">
      <label for="password">New password (at least ${MIN_PASSWORD} characters)</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD}"${error ? html` aria-invalid="true"` : ""}>
    </div>
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
    const password = form.get("password") ?? "";
    if (password.length < MIN_PASSWORD || password.length > 1024) {
      return resetPage(c, token, `Use ${MIN_PASSWORD} to 1024 characters.`, 400);
    }
    const used = await useSignInLink(db, token, "reset", password, clock);
    if (!used) return unusable(c);
    await recordAudit(db, used.orgId, "user.password_reset", { kind: "user", userId: used.id }, clock.now(), used.email, {
      via: "link",
    });
    await startSession(deps, c, used.id);
    return seeOther(c, "/dashboard");
  });

  return router;
}
