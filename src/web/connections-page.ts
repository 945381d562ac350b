/**
 * Settings → Connections (src/docs/notes/connections.md): each person connects their own Google
 * Workspace or Microsoft 365 account. "Connect Google" (a CSRF-checked form, mail and calendar
 * each optional) sends the browser to the provider with PKCE, `state` and `nonce`, kept sealed in
 * a short-lived HttpOnly cookie bound to the person, so any process of the deployment can finish
 * it; the provider comes back to /integrations/{provider}/callback, where the code is exchanged
 * and the tokens sealed. Disconnect revokes at the provider. Plain forms, no JavaScript.
 */
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import * as v from "valibot";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { CONNECTION_PROVIDERS, type ConnectionProvider } from "../domain.ts";
import { ago, alertBox, csrfField, type Html, messagePage, renderPage, seeOther } from "../html/layout.ts";
import { accountOf, readSignedInForm, requirePageSession, session } from "../html/page-frame.ts";
import { parseJson, secretOf } from "../integrations/connections/access.ts";
import { type ConnectionStatus, connectionStatuses, saveConnection } from "../integrations/connections/connections.ts";
import { beginConnect, type ConnectAttempt, finishConnect } from "../integrations/connections/oauth.ts";
import { PROVIDERS, providerEnv } from "../integrations/connections/providers.ts";
import { open, seal } from "../integrations/secret-box.ts";
import { deleteConnectionOp } from "../operations/connections.ts";
import { runOperation } from "./run-operation.ts";

const ATTEMPT_COOKIE = "crew_connect";
const COOKIE_PATH = "/integrations";
const ATTEMPT_SECONDS = 600;
const ATTEMPT_PURPOSE = "connect-attempt";

const Attempt = v.object({
  provider: v.picklist(CONNECTION_PROVIDERS),
  userId: v.string(),
  state: v.string(),
  nonce: v.string(),
  verifier: v.string(),
  parts: v.object({ mail: v.boolean(), calendar: v.boolean() }),
});

export const callbackUri = (baseUrl: string, provider: ConnectionProvider) => `${baseUrl}/integrations/${provider}/callback`;

const NOTICES: Record<string, string> = {
  connected: "Connected.",
  disconnected: "Disconnected: Crew revoked its access and forgot the tokens.",
  none: "That account was not connected.",
};

function connectionCard(account: ReturnType<typeof accountOf>, c: ConnectionStatus, now: number): Html {
  const label = PROVIDERS[c.provider].label;
  const uses = [c.mail ? "mail (read-only)" : null, c.calendar ? "calendar" : null].filter(Boolean).join(" and ") || "nothing yet";
  return html`<section class="card" aria-labelledby="conn-${c.provider}">
    <h2 id="conn-${c.provider}">${label}: ${c.email}</h2>
    ${alertBox("error", c.problem)}
    <dl class="facts"><dt>Crew uses</dt><dd>${uses}</dd><dt>Connected</dt><dd>${ago(c.connectedAt, now)}</dd></dl>
    <details class="confirm">
      <summary class="btn btn-danger-quiet">Disconnect…</summary>
      <form method="post" action="/settings/connections/${c.provider}/disconnect" class="confirm-box">
        ${csrfField(account)}
        <p>Disconnect ${c.email}? Crew revokes its access at ${label} and forgets the tokens; your mail and calendar are not changed.</p>
        <button type="submit" class="btn btn-danger">Disconnect ${label}</button>
      </form>
    </details>
  </section>`;
}

function connectForm(account: ReturnType<typeof accountOf>, provider: ConnectionProvider, reconnect: boolean): Html {
  const label = PROVIDERS[provider].label;
  return html`<form method="post" action="/settings/connections/${provider}" class="stack card">
    ${csrfField(account)}
    <h2>${reconnect ? `Reconnect ${label}` : `Connect ${label}`}</h2>
    <label><input type="checkbox" name="mail" value="on" checked> Mail: the inbox agent reads new mail (read-only)</label>
    <label><input type="checkbox" name="calendar" value="on" checked> Calendar: find open time, add events, the calendar agent's week</label>
    <div><button type="submit" class="btn btn-primary">${reconnect ? `Reconnect ${label}` : `Connect ${label}`}</button></div>
  </form>`;
}

async function connectionsPage(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  notice: string | undefined,
  error?: string,
  status = 200,
) {
  const account = accountOf(found);
  const connections = await connectionStatuses(deps, { orgId: found.user.orgId, userId: found.user.id });
  const available = CONNECTION_PROVIDERS.filter((p) => providerEnv(deps.config, p));
  const now = deps.clock.now();
  const body = html`<h1>Connections</h1>
<p class="lead">Connect your own Google Workspace or Microsoft 365 account: the inbox agent reads your new mail (read-only), and your AI tools find open time and add events in your calendar. You can untick either part.</p>
${alertBox("error", error ?? null)}
${alertBox("success", notice ?? null)}
${available.length === 0 ? alertBox("info", "No provider is set up on this server yet: the operator sets GOOGLE_* or MICROSOFT_* (see /docs/notes/connections).") : ""}
<div class="grid-keys">
  ${connections.map((conn) => connectionCard(account, conn, now))}
  ${available.map((p) =>
    connectForm(
      account,
      p,
      connections.some((conn) => conn.provider === p),
    ),
  )}
</div>`;
  return renderPage(c, { title: "Connections", body, account, active: "/settings/connections" }, status);
}

const providerOf = (raw: string): ConnectionProvider | null =>
  (CONNECTION_PROVIDERS as readonly string[]).includes(raw) ? (raw as ConnectionProvider) : null;

export function connectionsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/settings/connections", session(deps), (c) => connectionsPage(deps, c, c.var.session, NOTICES[c.req.query("done") ?? ""]));

  router.post("/settings/connections/:provider", async (c) => {
    const read = await readSignedInForm(deps, c);
    if (read instanceof Response) return read;
    const provider = providerOf(c.req.param("provider"));
    const env = provider && providerEnv(deps.config, provider);
    if (!provider || !env)
      return messagePage(c, 404, "Not set up", "This provider is not set up on this server.", {
        href: "/settings/connections",
        label: "Back",
      });
    const parts = { mail: read.form.get("mail") === "on", calendar: read.form.get("calendar") === "on" };
    let begun: Awaited<ReturnType<typeof beginConnect>>;
    try {
      begun = await beginConnect(
        provider,
        env,
        callbackUri(deps.config.baseUrl, provider),
        read.found.user.id,
        parts,
        read.found.user.email,
      );
    } catch (error) {
      deps.log.error("connection discovery failed", { provider, error: String(error).split("\n")[0] });
      return connectionsPage(
        deps,
        c,
        read.found,
        undefined,
        `${PROVIDERS[provider].label} cannot be reached right now; try again in a moment.`,
      );
    }
    setCookie(c, ATTEMPT_COOKIE, await seal(secretOf(deps.config), JSON.stringify(begun.attempt), ATTEMPT_PURPOSE), {
      httpOnly: true,
      sameSite: "Lax",
      path: COOKIE_PATH,
      maxAge: ATTEMPT_SECONDS,
      secure: deps.config.baseUrl.startsWith("https:"),
    });
    return c.redirect(begun.url, 303);
  });

  router.get("/integrations/:provider/callback", async (c) => {
    const found = await requirePageSession(deps, c);
    if (found instanceof Response) return found;
    const provider = providerOf(c.req.param("provider"));
    const env = provider && providerEnv(deps.config, provider);
    const raw = getCookie(c, ATTEMPT_COOKIE);
    deleteCookie(c, ATTEMPT_COOKIE, { path: COOKIE_PATH });
    let attempt: ConnectAttempt | null = null;
    try {
      attempt = raw ? parseJson(Attempt, await open(secretOf(deps.config), raw, ATTEMPT_PURPOSE)) : null;
    } catch {
      attempt = null;
    }
    // The attempt must be this person's, for this provider: a callback link handed to someone else connects nothing.
    if (!provider || !env || !attempt || attempt.provider !== provider || attempt.userId !== found.user.id) {
      return connectionsPage(
        deps,
        c,
        found,
        undefined,
        "This connection attempt expired or was started in another browser. Start again.",
        400,
      );
    }
    const denied = c.req.query("error");
    if (denied) {
      return connectionsPage(
        deps,
        c,
        found,
        undefined,
        `${PROVIDERS[provider].label} did not grant access (${denied.slice(0, 100)}). Nothing was connected.`,
      );
    }
    try {
      // The callback as the provider sent it, on the public base (never the request's Host).
      const url = new URL(`${callbackUri(deps.config.baseUrl, provider)}${new URL(c.req.url).search}`);
      const connected = await finishConnect(env, url, attempt, deps.clock.now());
      await saveConnection(deps, { orgId: found.user.orgId, userId: found.user.id }, provider, connected, attempt.parts);
    } catch (error) {
      deps.log.warn("connection refused", { provider, error: String(error).split("\n")[0] });
      const why = `${PROVIDERS[provider].label} sent an answer that does not check out (state, PKCE or token). Nothing was connected; start again.`;
      return connectionsPage(deps, c, found, undefined, why, 400);
    }
    return seeOther(c, "/settings/connections?done=connected");
  });

  router.post("/settings/connections/:provider/disconnect", async (c) => {
    const read = await readSignedInForm(deps, c);
    if (read instanceof Response) return read;
    const provider = providerOf(c.req.param("provider")) ?? c.req.param("provider");
    const removed = await runOperation(deps, c, read.found, deleteConnectionOp, { provider }).then(
      () => true,
      (error) => {
        if (error instanceof Error && "status" in error && error.status === 404) return false;
        throw error;
      },
    );
    return seeOther(c, `/settings/connections?done=${removed ? "disconnected" : "none"}`);
  });

  return router;
}
