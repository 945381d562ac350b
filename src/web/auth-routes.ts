/**
 * Signing in and out (src/docs/notes/web-and-accounts.md): the HTML pages (/sign-in, /sign-out) and their JSON twins under
 * /api/auth/. Sign-in posts need no session token (there is no session yet) but must come from
 * Crew's origin, which also stops login CSRF; sign-out is a state change on the session: Origin
 * and, for the form, the csrf token.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import * as v from "valibot";
import { endSession, readSession, startSession } from "../auth/sessions.ts";
import { setupPending } from "../auth/setup.ts";
import { checkSignIn, WRONG_CREDENTIALS } from "../auth/sign-in.ts";
import type { OidcEnv } from "../config.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { alertBox, messagePage, renderPage, seeOther } from "../html/layout.ts";
import { readForm, refuseForgedForm, safeNextPath } from "../html/page-frame.ts";
import { readJsonObject } from "../http/body.ts";
import { clientAddress } from "../http/client-address.ts";
import { assertSameOrigin, crossSiteReason } from "../http/csrf.ts";
import { parseOrThrow } from "../operations/validate.ts";
import type { User } from "../store/auth/users.ts";

const publicUser = (u: User) => ({ id: u.id, email: u.email, name: u.name, plan: u.plan });

const SignInBody = v.strictObject({
  email: v.pipe(v.string("Must be a string."), v.maxLength(1000, "Must be at most 1000 characters.")),
  password: v.pipe(v.string("Must be a string."), v.maxLength(4096, "Must be at most 4096 characters.")),
});

/** Password sign-in is off with OIDC_ONLY (issue 25): one message for the page and the JSON twin. */
const passwordOff = (oidc: OidcEnv) => `Password sign-in is off here: use Sign in with ${oidc.name}.`;

/** Before first-run setup nobody can sign in: say where the one-time setup link is. */
const SETUP_PENDING = html`<strong>No account exists yet.</strong> When it started, the server printed a one-time setup link in its log (the terminal of <code>npm start</code>, or <code>journalctl -u crew</code>): “No user yet: create the owner account at …/setup?token=…”. Open it to create the owner account. Restarting the server prints a fresh one.`;

function signInPage(
  c: Context<AppEnv>,
  options: { next: string; email?: string; error?: string; oidc: OidcEnv | null; setupPending?: boolean },
  status = 200,
  extra = {},
) {
  const sso = options.oidc
    ? html`<p><a class="btn btn-primary btn-block" href="/sign-in/oidc?next=${encodeURIComponent(options.next)}">Sign in with ${options.oidc.name}</a></p>`
    : "";
  if (options.oidc?.only) {
    const body = html`<section class="card"><h1>Sign in to Crew</h1>${alertBox("error", options.error)}${sso}</section>`;
    return renderPage(c, { title: "Sign in", body, narrow: true }, status, extra);
  }
  const body = html`<section class="card">
  <h1>Sign in to Crew</h1>
  ${alertBox("info", options.setupPending ? SETUP_PENDING : null)}
  ${alertBox("error", options.error)}
  ${sso}
  <form method="post" action="/sign-in" class="stack">
    <input type="hidden" name="next" value="${options.next}">
    <div class="field">
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${options.email ?? ""}"${options.email ? "" : html` autofocus`}>
    </div>
    <div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required${options.email ? html` autofocus` : ""}>
    </div>
    <button type="submit" class="btn btn-primary btn-block">Sign in</button>
  </form>
  <p class="muted small">No account yet? Ask the owner of this Crew to create one (<code>npx crew user create</code>).</p>
</section>`;
  return renderPage(c, { title: "Sign in", body, narrow: true }, status, extra);
}

export function authRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/sign-in", async (c) => {
    const next = safeNextPath(c.req.query("next"));
    if (await readSession(deps, c)) return seeOther(c, next);
    return signInPage(c, { next, oidc: deps.config.oidc, setupPending: await setupPending(deps.db) });
  });

  router.post("/sign-in", async (c) => {
    const crossSite = crossSiteReason(c.req.raw, deps.config.baseUrl);
    if (crossSite) return messagePage(c, 403, "Sign-in refused", crossSite, { href: "/sign-in", label: "Go to the sign-in page" });
    const form = await readForm(c);
    const next = safeNextPath(form.get("next"));
    const email = form.get("email") ?? "";
    const { db, clock, config } = deps;
    const oidc = config.oidc;
    if (oidc?.only) return signInPage(c, { next, error: passwordOff(oidc), oidc }, 403);
    const result = await checkSignIn(db, clientAddress(c, config), email, form.get("password") ?? "", clock.now());
    if (result.ok) {
      await startSession(deps, c, result.user.id);
      return seeOther(c, next);
    }
    if (result.reason === "throttled") {
      return signInPage(c, { next, email, error: result.message, oidc }, 429, { "Retry-After": String(result.retryAfter) });
    }
    return signInPage(c, { next, email, error: WRONG_CREDENTIALS, oidc }, 401);
  });

  router.post("/sign-out", async (c) => {
    const found = await readSession(deps, c);
    if (found) {
      const refused = await refuseForgedForm(deps, c, found, await readForm(c));
      if (refused) return refused;
      await endSession(deps, c);
    }
    return seeOther(c, "/sign-in");
  });

  // JSON twins. Errors are the REST envelope.
  router.post("/api/auth/sign-in", async (c) => {
    const { db, clock, config } = deps;
    assertSameOrigin(c.req.raw, config.baseUrl);
    if (config.oidc?.only) throw new ApiError(403, "forbidden", passwordOff(config.oidc));
    const raw = await readJsonObject(c.req.raw);
    const input = parseOrThrow(SignInBody, raw, "request body");
    const result = await checkSignIn(db, clientAddress(c, config), input.email, input.password, clock.now());
    if (!result.ok && result.reason === "throttled") {
      throw new ApiError(429, "rate_limited", result.message, {
        headers: { "Retry-After": String(result.retryAfter) },
      });
    }
    if (!result.ok) throw new ApiError(401, "unauthorized", WRONG_CREDENTIALS);
    await startSession(deps, c, result.user.id);
    return c.json({ user: publicUser(result.user) }, 200, { "Cache-Control": "no-store" });
  });

  router.post("/api/auth/sign-out", async (c) => {
    assertSameOrigin(c.req.raw, deps.config.baseUrl);
    await endSession(deps, c);
    return c.json({ ok: true }, 200, { "Cache-Control": "no-store" });
  });

  router.get("/api/auth/session", async (c) => {
    const found = await readSession(deps, c);
    if (!found) throw new ApiError(401, "unauthorized", "Not signed in.");
    return c.json({ user: publicUser(found.user) }, 200, { "Cache-Control": "no-store" });
  });

  return router;
}
