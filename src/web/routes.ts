/**
 * The server-rendered web UI (src/docs/notes/web-app.md): sign-in, first-run setup, dashboard, API keys, and the
 * static stylesheet and script. Pages use the session cookie; forms are CSRF-checked (Origin and
 * the session's token). The OAuth pages (connected apps, consent) share the same kit, src/html/.
 */
import { Hono } from "hono";
import { dummyPasswordHash } from "../auth/passwords.ts";
import { readSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { seeOther } from "../html/layout.ts";
import { actionsPageRoutes } from "./actions-page.ts";
import { agentPageRoutes } from "./agent-page.ts";
import { assetRoutes } from "./assets.ts";
import { authRoutes } from "./auth-routes.ts";
import { calendarPageRoutes } from "./calendar-page.ts";
import { citedMailRoutes } from "./cited-mail-page.ts";
import { connectionsPageRoutes } from "./connections-page.ts";
import { contactsPageRoutes } from "./contacts-page.ts";
import { dashboardRoutes } from "./dashboard.ts";
import { evalPageRoutes } from "./eval-page.ts";
import { feedPageRoutes } from "./feed-pages.ts";
import { keysPageRoutes } from "./keys-page.ts";
import { mailLinkRoutes } from "./mail-links.ts";
import { modelPageRoutes } from "./model-page.ts";
import { movedPageRoutes } from "./moved-pages.ts";
import { notificationsPageRoutes } from "./notifications-page.ts";
import { oidcRoutes } from "./oidc-routes.ts";
import { reportPageRoutes } from "./report-pages.ts";
import { resetPasswordRoutes } from "./reset-password.ts";
import { settingsPageRoutes } from "./settings-pages.ts";
import { setupRoutes } from "./setup.ts";
import { slackPageRoutes } from "./slack-page.ts";
import { sourcesPageRoutes } from "./sources-page.ts";
import { suggestionsPageRoutes } from "./suggestions-page.ts";
import { themeRoutes } from "./theme-route.ts";
import { usersPageRoutes } from "./users-page.ts";
import { webhooksPageRoutes } from "./webhooks-page.ts";

export function webRoutes(deps: AppDeps): Hono<AppEnv> {
  // Computed once ahead, so the first sign-in with an unknown email takes no longer than the rest.
  void dummyPasswordHash();
  const router = new Hono<AppEnv>();
  router.get("/", async (c) => seeOther(c, (await readSession(deps, c)) ? "/dashboard" : "/sign-in"));
  router.route("/", assetRoutes());
  router.route("/", authRoutes(deps));
  router.route("/", oidcRoutes(deps));
  router.route("/", setupRoutes(deps));
  router.route("/", resetPasswordRoutes(deps));
  router.route("/", settingsPageRoutes(deps));
  router.route("/", themeRoutes(deps));
  router.route("/", dashboardRoutes(deps));
  router.route("/", keysPageRoutes(deps));
  router.route("/", calendarPageRoutes(deps));
  router.route("/", connectionsPageRoutes(deps));
  router.route("/", webhooksPageRoutes(deps));
  router.route("/", movedPageRoutes());
  // The work pages (src/docs/notes/web-app.md): read and act on the crew's work; open to every plan.
  router.route("/", reportPageRoutes(deps));
  router.route("/", actionsPageRoutes(deps));
  router.route("/", suggestionsPageRoutes(deps));
  router.route("/", citedMailRoutes(deps));
  router.route("/", contactsPageRoutes(deps));
  router.route("/", feedPageRoutes(deps));
  router.route("/", agentPageRoutes(deps));
  router.route("/", usersPageRoutes(deps));
  router.route("/", sourcesPageRoutes(deps));
  router.route("/", modelPageRoutes(deps));
  router.route("/", mailLinkRoutes(deps));
  router.route("/", notificationsPageRoutes(deps));
  router.route("/", slackPageRoutes(deps));
  router.route("/", evalPageRoutes(deps));
  return router;
}
