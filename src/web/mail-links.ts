/**
 * The links in Crew's mails (src/docs/notes/delivery.md), no session needed: the token is the credential.
 * `/a/{token}`: GET shows the action and a confirm button and changes nothing (mail scanners
 * prefetch links); POST (the button: a same-origin form) performs the one verb as the link's user,
 * through the registry like any change made in the web app, once. `/unsubscribe/{token}`: the
 * RFC 8058 one-click unsubscribe — a POST (from the mail client, any origin) turns the briefing
 * mail off; a GET shows a button that does the same. Used, expired and unknown tokens get a page
 * saying so and change nothing; a deactivated user's links read as unknown.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { AppDeps, AppEnv } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { messagePage, renderPage } from "../html/layout.ts";
import { crossSiteReason } from "../http/csrf.ts";
import { heldLink, useMailLink } from "../integrations/notify/links.ts";
import { getActionOp, updateActionOp } from "../operations/actions.ts";
import { updateMyNotificationsOp } from "../operations/notifications.ts";
import type { ActionVerb, LinkState } from "../store/delivery/notify.ts";
import { runOperationAs } from "./run-operation.ts";

/** The action a link names, read as its user; null when it no longer exists. */
async function actionOf(deps: AppDeps, c: Context<AppEnv>, principal: Principal, id: string) {
  try {
    return await runOperationAs(deps, c, principal, getActionOp, { id }, "link");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

const VERBS: Record<ActionVerb, { status: "approved" | "done" | "dismissed"; label: string; past: string }> = {
  approve: { status: "approved", label: "Approve", past: "approved" },
  done: { status: "done", label: "Mark done", past: "marked done" },
  dismiss: { status: "dismissed", label: "Dismiss", past: "dismissed" },
};

const HOME = { href: "/dashboard", label: "Open Crew" };

function deadLink(c: Context<AppEnv>, state: LinkState | "unknown") {
  const [title, message] =
    state === "used"
      ? ["Link already used", "This link has been used already; each one works once. Open Crew to see the action as it is now."]
      : state === "expired"
        ? ["Link expired", "This link has expired (links in mails work for 72 hours). Open Crew to act on it there."]
        : ["Link not valid", "This link is not valid: it may have been mistyped, or its account is no longer active."];
  return messagePage(c, state === "unknown" ? 404 : 410, title, message, HOME);
}

export function mailLinkRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/a/:token", async (c) => {
    const held = await heldLink(deps.db, c.req.param("token"), deps.clock.now());
    const link = held?.link;
    if (!held || link?.purpose !== "action") return deadLink(c, "unknown");
    if (link.state !== "valid") return deadLink(c, link.state);
    const action = await actionOf(deps, c, held.principal, link.actionId);
    if (!action) return messagePage(c, 404, "Action not found", "This action no longer exists.", HOME);
    const verb = VERBS[link.verb];
    const body = html`<section class="card">
  <h1>${verb.label}: ${action.title}</h1>
  <dl class="facts"><dt>Priority</dt><dd>${action.priority}</dd><dt>Status now</dt><dd>${action.status}</dd></dl>
  ${action.description ? html`<p>${action.description}</p>` : ""}
  <form method="post" action="/a/${c.req.param("token")}"><button type="submit" class="btn btn-primary">${verb.label}</button></form>
  <p class="muted small">Nothing changes until you press the button. This link works once, for 72 hours.</p>
</section>`;
    return renderPage(c, { title: `${verb.label} action`, body, narrow: true }, 200, { "Referrer-Policy": "no-referrer" });
  });

  router.post("/a/:token", async (c) => {
    const crossSite = crossSiteReason(c.req.raw, deps.config.baseUrl);
    if (crossSite) return messagePage(c, 403, "Form refused", crossSite, HOME);
    const token = c.req.param("token");
    const now = deps.clock.now();
    const held = await heldLink(deps.db, token, now);
    const link = held?.link;
    if (!held || link?.purpose !== "action") return deadLink(c, "unknown");
    if (link.state !== "valid") return deadLink(c, link.state);
    if (!(await useMailLink(deps.db, token, now))) return deadLink(c, "used");
    const verb = VERBS[link.verb];
    try {
      const done = await runOperationAs(deps, c, held.principal, updateActionOp, { id: link.actionId, status: verb.status }, "link");
      return messagePage(c, 200, `Action ${verb.past}`, `“${done.title}” is now ${verb.past}.`, {
        href: "/actions",
        label: "See the actions",
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        return messagePage(c, 404, "Action not found", "This action no longer exists.", HOME);
      throw error;
    }
  });

  const unsubscribe = async (c: Context<AppEnv>, act: boolean) => {
    const held = await heldLink(deps.db, c.req.param("token") ?? "", deps.clock.now());
    const link = held?.link;
    if (!held || link?.purpose !== "unsubscribe") return deadLink(c, "unknown");
    if (link.state === "expired") return deadLink(c, "expired");
    if (!act) {
      const body = html`<section class="card">
  <h1>Stop the briefing mail?</h1>
  <p>You will no longer get your daily briefing by email. You can turn it on again in Settings → Notifications.</p>
  <form method="post" action="/unsubscribe/${c.req.param("token")}"><button type="submit" class="btn btn-primary">Turn the briefing mail off</button></form>
</section>`;
      return renderPage(c, { title: "Unsubscribe", body, narrow: true }, 200, { "Referrer-Policy": "no-referrer" });
    }
    // Turning it off twice is harmless, so the link is not single use (a mail client may POST, then the person click).
    await runOperationAs(deps, c, held.principal, updateMyNotificationsOp, { briefingEmail: false }, "link");
    return messagePage(c, 200, "Briefing mail turned off", "You will no longer get your daily briefing by email.", {
      href: "/settings/notifications",
      label: "Notification settings",
    });
  };
  router.get("/unsubscribe/:token", (c) => unsubscribe(c, false));
  router.post("/unsubscribe/:token", (c) => unsubscribe(c, true));
  return router;
}
