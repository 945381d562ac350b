/**
 * The page frame: what signed-in pages and their forms share (web/ and oauth/): the session guard (redirect to sign-in), form
 * parsing, and the CSRF check of a form (Origin + the session's token). Other pages of Crew
 * (connected apps, consent, webhooks, calendar) use these too.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { readSession, sessionPrincipalOf, type ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { readBodyText } from "../http/body.ts";
import { CSRF_FIELD, crossSiteReason, csrfTokenMatches } from "../http/csrf.ts";
import { messagePage, type PageAccount, seeOther } from "./layout.ts";

const FORM_LIMIT = 64 * 1024;

/** `next` for a sign-in: a path on this server only (no scheme, no `//host`, no backslash tricks). */
export function safeNextPath(next: unknown, fallback = "/dashboard"): string {
  if (typeof next !== "string" || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f\\]/.test(next) || next.length > 2000) return fallback;
  try {
    const base = "http://crew.invalid";
    const parsed = new URL(next, base);
    if (parsed.origin !== base) return fallback;
    const path = parsed.pathname + parsed.search + parsed.hash;
    // Decided on what the browser will resolve: URL parsing normalises "/.//evil.example",
    // "/%2e//evil.example" and "/a/..//evil.example" to "//evil.example", a network-path
    // reference (RFC 3986 §4.2) to another host. The returned value itself must stay on this origin.
    if (new URL(path, base).origin !== base || path.startsWith("//")) return fallback;
    return path;
  } catch {
    return fallback;
  }
}

export const accountOf = (found: ValidSession): PageAccount => ({ user: found.user, csrfToken: found.session.csrfToken });

/** The signed-in session, or a 303 to /sign-in that comes back here afterwards. */
export async function requirePageSession(deps: AppDeps, c: Context<AppEnv>): Promise<ValidSession | Response> {
  const found = await readSession(deps, c);
  if (found) return found;
  const url = new URL(c.req.url);
  const back = c.req.method === "GET" ? url.pathname + url.search : url.pathname;
  return seeOther(c, `/sign-in?next=${encodeURIComponent(back)}`);
}

/** A urlencoded form body (the only kind Crew's forms send), at most 64 KiB. */
export async function readForm(c: Context<AppEnv>): Promise<URLSearchParams> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new ApiError(415, "unsupported_media_type", "Send the form as application/x-www-form-urlencoded.");
  }
  return new URLSearchParams(await readBodyText(c.req.raw, FORM_LIMIT));
}

/**
 * Null when a signed-in form may act; otherwise the refusal page. Both layers must pass: the
 * request's Origin is Crew's and the form carries this session's csrf token.
 */
export async function refuseForgedForm(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  form: URLSearchParams,
): Promise<Response | null> {
  const { config } = deps;
  const crossSite = crossSiteReason(c.req.raw, config.baseUrl);
  if (!crossSite && csrfTokenMatches(found.session.csrfToken, form.get(CSRF_FIELD))) return null;
  return messagePage(
    c,
    403,
    "Form refused",
    crossSite ?? "This form is out of date or was not sent from this page. Reload the page and try again.",
    { href: "/dashboard", label: "Back to the dashboard" },
    accountOf(found),
  );
}

/**
 * What every signed-in form handler does first: the session (else to sign-in), the form, its CSRF
 * check. A Response means "answer with this"; otherwise the form may act.
 */
export async function readSignedInForm(
  deps: AppDeps,
  c: Context<AppEnv>,
): Promise<Response | { found: ValidSession; form: URLSearchParams }> {
  const found = await requirePageSession(deps, c);
  if (found instanceof Response) return found;
  const form = await readForm(c);
  return (await refuseForgedForm(deps, c, found, form)) ?? { found, form };
}

declare module "hono" {
  /** Set by the `session` middleware below for the signed-in pages after it. */
  interface ContextVariableMap {
    session: ValidSession;
  }
}

/**
 * Hono middleware for signed-in pages: anyone else goes to sign-in and comes back; a signed-in
 * person is `c.var.session` (user, session, CSRF token) and `c.var.principal` (for the operations).
 */
export function session(deps: AppDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const found = await requirePageSession(deps, c);
    if (found instanceof Response) return found;
    c.set("session", found);
    c.set("principal", sessionPrincipalOf(found));
    await next();
  });
}
