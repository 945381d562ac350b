/**
 * "Sign in with {OIDC_NAME}" (issue 25, src/auth/oidc.ts): GET /sign-in/oidc sends the browser to
 * the identity provider with PKCE, state and nonce, kept in a short-lived HttpOnly cookie (so any
 * process of the deployment can finish the sign-in); GET /sign-in/oidc/callback checks them,
 * signs the user in and goes on to `next` — which may be the OAuth consent page of an MCP client.
 */
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { beginOidc, finishOidc, type OidcAttempt, recordOidcRefusal, recordOidcSignIn, resolveOidcUser } from "../auth/oidc.ts";
import { startSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { messagePage, seeOther } from "../html/layout.ts";
import { safeNextPath } from "../html/page-frame.ts";

const ATTEMPT_COOKIE = "crew_oidc";
const COOKIE_PATH = "/sign-in/oidc";
const ATTEMPT_SECONDS = 600;

const encode = (a: OidcAttempt) => btoa(JSON.stringify(a));
function decode(raw: string | undefined): OidcAttempt | null {
  if (!raw) return null;
  try {
    const a = JSON.parse(atob(raw));
    return typeof a?.state === "string" && typeof a.nonce === "string" && typeof a.verifier === "string"
      ? { ...a, next: safeNextPath(a.next) }
      : null;
  } catch {
    return null;
  }
}

export function oidcRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const oidc = deps.config.oidc;
  if (!oidc) return router;
  const redirectUri = `${deps.config.baseUrl}/sign-in/oidc/callback`;
  const refused = (c: Context<AppEnv>, status: number, message: string) =>
    messagePage(c, status, "Sign-in refused", message, { href: "/sign-in", label: "Back to sign-in" });

  router.get("/sign-in/oidc", async (c) => {
    let begun: Awaited<ReturnType<typeof beginOidc>>;
    try {
      begun = await beginOidc(oidc, redirectUri, safeNextPath(c.req.query("next")));
    } catch (error) {
      deps.log.error("oidc discovery failed", { issuer: oidc.issuer, error: String(error) });
      return messagePage(c, 502, "Sign-in unavailable", `${oidc.name} cannot be reached right now; try again in a moment.`, {
        href: "/sign-in",
        label: "Back to sign-in",
      });
    }
    setCookie(c, ATTEMPT_COOKIE, encode(begun.attempt), {
      httpOnly: true,
      sameSite: "Lax",
      path: COOKIE_PATH,
      maxAge: ATTEMPT_SECONDS,
      secure: deps.config.baseUrl.startsWith("https:"),
    });
    return c.redirect(begun.url, 302);
  });

  router.get("/sign-in/oidc/callback", async (c) => {
    const attempt = decode(getCookie(c, ATTEMPT_COOKIE));
    deleteCookie(c, ATTEMPT_COOKIE, { path: COOKIE_PATH });
    if (!attempt) return refused(c, 400, "This sign-in expired or was started in another browser. Start again.");
    const now = deps.clock.now();
    let claims: Awaited<ReturnType<typeof finishOidc>>;
    try {
      // The callback URL as the provider sent it, on the public base (never the request's Host).
      claims = await finishOidc(oidc, new URL(`${redirectUri}${new URL(c.req.url).search}`), attempt);
    } catch (error) {
      deps.log.warn("oidc sign-in refused", { error: String(error).split("\n")[0] });
      await recordOidcRefusal(deps.db, "invalid_response", now);
      return refused(c, 400, `${oidc.name} sent an answer that does not check out (state, nonce or token). Start again.`);
    }
    const outcome = await resolveOidcUser(deps.db, oidc, claims, now);
    if (!outcome.ok) {
      await recordOidcRefusal(deps.db, outcome.reason, now);
      return refused(c, 403, outcome.message);
    }
    await recordOidcSignIn(deps.db, outcome, now);
    await startSession(deps, c, outcome.user.id);
    return seeOther(c, attempt.next);
  });
  return router;
}
