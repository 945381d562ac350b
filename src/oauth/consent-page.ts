/**
 * The consent page (src/docs/notes/oauth.md): names the application, where it will send you, and what it may do
 * (capped by the plan). Its Content-Security-Policy lets the form lead to the client's redirect
 * URI: Chromium applies form-action to the redirect that follows the POST, so the layout's
 * `form-action 'self'` alone would block the way back to the application.
 */
import type { Context } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppEnv } from "../deps.ts";
import type { OAuthScope } from "../domain.ts";
import { cheapestPlanFor, planIncludes, planTier } from "../domain.ts";
import { alertBox, csrfField, type Html, renderPage } from "../html/layout.ts";
import { accountOf } from "../html/page-frame.ts";
import { CONTENT_SECURITY_POLICY } from "../http/security-headers.ts";
import { redirectHost } from "../lib/redirect-uri.ts";
import type { AuthorizeRequest } from "./authorize-request.ts";
import { documentHost, isClientIdDocumentUrl } from "./client-id-document.ts";
import { ALSO_WRITE_FIELD, capScopesToPlan } from "./scopes.ts";

export const SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  "crew:read": "Read your agents' status, standups, briefings, suggestions, company profile and action queue.",
  "crew:write": "Also add and update actions, contacts, handoffs and insights, and use your connected calendar.",
  "crew:admin": "The same as crew:write: add and update actions, contacts, handoffs and insights, and use your calendar.",
};

/** The CSP source for where the consent form's redirect goes: an origin, or a private-use scheme. */
function redirectSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

export function consentCsp(redirectUri: string): string {
  const others = CONTENT_SECURITY_POLICY.split(";")
    .map((d) => d.trim())
    .filter((d) => d !== "" && !d.startsWith("form-action"));
  return [...others, `form-action 'self' ${redirectSource(redirectUri)}`].join("; ");
}

const hiddenFields = (params: URLSearchParams): Html[] =>
  [...params.entries()].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);

export function renderConsentPage(c: Context<AppEnv>, found: ValidSession, request: AuthorizeRequest, action: string): Promise<Response> {
  const account = accountOf(found);
  const plan = found.user.plan;
  const granted = capScopesToPlan(request.scopes, plan);
  const name = request.client.metadata.client_name ?? "An unnamed application";
  const host = redirectHost(request.redirectUri);
  const canApprove = granted.length > 0;
  // A metadata-document client (src/docs/notes/oauth.md) is vouched for by the site serving its document: show who that is.
  const documentClient = isClientIdDocumentUrl(request.client.id);

  const capped = canApprove && granted.join(" ") !== request.scopes.join(" ");
  const planNote = !canApprove
    ? alertBox(
        "error",
        html`Your plan (<strong>${plan}</strong>) does not include API or MCP access, so no application can connect to your account. The <strong>${cheapestPlanFor("read")}</strong> plan includes read access; <strong>${cheapestPlanFor("write")}</strong> includes everything.`,
      )
    : capped
      ? alertBox(
          "info",
          html`The application asked for ${request.scopes.join(", ")}; your plan (<strong>${plan}</strong>, ${planTier(plan)} access) allows what is listed below.`,
        )
      : "";
  const scopeList = granted.map((s) => html`<li><strong>${s}</strong> — ${SCOPE_DESCRIPTIONS[s]}</li>`);
  // No scope in the request (the MCP SDK 1.12 client and others, src/docs/notes/mcp-clients.md): read
  // access by default, said here, and changes only if the person ticks them (and the plan has them).
  const unasked = canApprove && !request.scopeSent;
  const canWrite = unasked && planIncludes(plan, "write") && !granted.includes("crew:write");
  const unaskedNote = unasked
    ? html`<p>${name} did not say what it needs, so Crew gives it <strong>read access</strong> (crew:read) by default: it will see the read tools only.${
        planIncludes(plan, "write") ? "" : html` Your plan (<strong>${plan}</strong>) includes read access only.`
      }</p>`
    : "";
  const writeBox = canWrite
    ? html`<p><label><input type="checkbox" name="${ALSO_WRITE_FIELD}" value="on"> Also allow changes (<strong>crew:write</strong>) — ${SCOPE_DESCRIPTIONS["crew:write"]}</label></p>`
    : "";

  const body = html`<section class="card" aria-labelledby="consent-h">
  <h1 id="consent-h">Connect ${name} to Crew?</h1>
  ${planNote}
  <dl class="facts">
    <dt>Application</dt><dd><strong>${name}</strong> <span class="muted small mono">${request.client.id}</span></dd>
    ${
      documentClient
        ? html`<dt>Described by</dt><dd><strong class="mono">${documentHost(request.client.id)}</strong> <span class="muted small">(the site publishing this application's metadata)</span></dd>`
        : ""
    }
    <dt>Returns you to</dt><dd class="mono">${host}</dd>
    <dt>Acts as</dt><dd>${found.user.email}</dd>
  </dl>
  ${unaskedNote}
  ${canApprove ? html`<p>If you approve, it may:</p><ul>${scopeList}</ul>` : ""}
  <p class="muted small">Crew cannot verify the application's name. Approve only if you started this connection yourself. You can disconnect it at any time under Connected apps.</p>
  <form method="post" action="${action}" class="stack">
    ${csrfField(account)}
    ${hiddenFields(request.params)}
    ${writeBox}
    <div>
      ${canApprove ? html`<button type="submit" name="decision" value="approve" class="btn btn-primary">Approve</button>` : ""}
      <button type="submit" name="decision" value="deny" class="btn">${canApprove ? "Deny" : "Cancel"}</button>
    </div>
  </form>
</section>`;
  return renderPage(c, { title: `Connect ${name}`, body, account, narrow: true }, 200, {
    "Content-Security-Policy": consentCsp(request.redirectUri),
  });
}
