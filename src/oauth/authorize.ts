/**
 * The authorization endpoint (OAuth 2.1 §4.1): GET shows the consent page (after sign-in), POST
 * is the consent form's answer. Consent is asked at every authorization (src/docs/notes/oauth.md).
 */
import type { Context } from "hono";
import { readSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { messagePage } from "../html/layout.ts";
import { accountOf, readForm, refuseForgedForm } from "../html/page-frame.ts";
import { newId, sha256Hex } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { insertCode } from "../store/oauth/codes.ts";
import { insertGrant } from "../store/oauth/grants.ts";
import { type AuthorizeCheck, checkAuthorizeRequest, clientRedirect } from "./authorize-request.ts";
import { clientLookup } from "./client-id-document.ts";
import { renderConsentPage } from "./consent-page.ts";
import { ALSO_WRITE_FIELD, approvedScopes, capScopesToPlan } from "./scopes.ts";
import { CODE_TTL, newAuthorizationCode } from "./tokens.ts";

const AUTHORIZE_PATH = "/oauth/authorize";

/** Back to the client. No-store, and no Referer leaking the consent page to the client. */
function redirect(location: string, status: 302 | 303): Response {
  return new Response(null, { status, headers: { Location: location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
}

function refusal(c: Context<AppEnv>, check: Extract<AuthorizeCheck, { kind: "page" }>): Promise<Response> {
  return messagePage(c, 400, check.title, check.message, { href: "/", label: "Go to Crew" });
}

/** Sign in first, then come back to this very request. */
function toSignIn(params: URLSearchParams): Response {
  const back = `${AUTHORIZE_PATH}?${params.toString()}`;
  return new Response(null, {
    status: 303,
    headers: { Location: `/sign-in?next=${encodeURIComponent(back)}`, "Cache-Control": "no-store" },
  });
}

export async function authorizeGet(deps: AppDeps, c: Context<AppEnv>): Promise<Response> {
  const check = await checkAuthorizeRequest(deps.db, deps.config, new URL(c.req.url).searchParams, clientLookup(deps));
  if (check.kind === "page") return refusal(c, check);
  if (check.kind === "redirect") return redirect(check.location, 302);
  const found = await readSession(deps, c);
  if (!found) return toSignIn(check.request.params);
  return renderConsentPage(c, found, check.request, AUTHORIZE_PATH);
}

export async function authorizePost(deps: AppDeps, c: Context<AppEnv>): Promise<Response> {
  const { db, config, clock } = deps;
  const form = await readForm(c);
  const found = await readSession(deps, c);
  if (found) {
    const forged = await refuseForgedForm(deps, c, found, form);
    if (forged) return forged;
  }
  const check = await checkAuthorizeRequest(db, config, form, clientLookup(deps));
  if (check.kind === "page") return refusal(c, check);
  if (check.kind === "redirect") return redirect(check.location, 303);
  const { request } = check;
  // Signed out since the page was shown (or in another tab): sign in and see the page again.
  if (!found) return toSignIn(request.params);

  if (form.get("decision") !== "approve") {
    // A plan without API access can only cancel: say why, so the application can tell its user.
    const noAccess = capScopesToPlan(request.scopes, found.user.plan).length === 0;
    return redirect(
      clientRedirect(config, request.redirectUri, {
        error: "access_denied",
        error_description: noAccess
          ? `The user's Crew plan (${found.user.plan}) does not include API or MCP access; they can upgrade the plan and connect again.`
          : "The user denied the request.",
        state: request.state,
      }),
      303,
    );
  }
  const scopes = approvedScopes(request, found.user.plan, form.get(ALSO_WRITE_FIELD) === "on");
  if (scopes.length === 0) {
    return messagePage(
      c,
      403,
      "Your plan cannot connect applications",
      `Your plan (${found.user.plan}) does not include API or MCP access, so no application can be approved.`,
      { href: "/dashboard", label: "Back to the dashboard" },
      accountOf(found),
    );
  }

  const now = clock.now();
  const grantId = newId("grt", now);
  await insertGrant(
    db,
    {
      id: grantId,
      clientId: request.client.id,
      userId: found.user.id,
      scopes,
      resource: request.resource,
      redirectUri: request.redirectUri,
    },
    now,
  );
  await recordAudit(db, found.user.orgId, "grant.approved", { kind: "user", userId: found.user.id }, now, grantId, {
    client: request.client.id,
    scopes,
  });
  const code = newAuthorizationCode();
  await insertCode(
    db,
    {
      codeHash: sha256Hex(code),
      grantId,
      clientId: request.client.id,
      redirectUri: request.redirectUri,
      redirectUriSent: request.redirectUriSent,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scopes,
      expiresAt: now + CODE_TTL,
    },
    now,
  );
  return redirect(clientRedirect(config, request.redirectUri, { code, state: request.state }), 303);
}
