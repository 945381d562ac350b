/**
 * The Calendar page (src/docs/notes/calendar.md): connect a CalDAV calendar (the server is asked first, so a
 * wrong password is said here and nothing is stored), see which calendar is connected and whether
 * its last use failed, disconnect with a confirmation step. Plain forms that work without
 * JavaScript, CSRF-checked; they call the same functions as /api/integrations/calendar.
 */

import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import { sessionPrincipalOf } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { planIncludes } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { ago, alertBox, csrfField, type Html, type PageAccount, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { type CalendarStatus, calendarStatus } from "../integrations/calendar.ts";
import { connectCalendarIntegrationOp, disconnectCalendarIntegrationOp } from "../operations/integrations.ts";
import { handleForm, type PageRenderer } from "./form-flow.ts";
import { runOperation } from "./run-operation.ts";

type Field = "url" | "username" | "password";

interface CalendarView {
  error?: string;
  notice?: string;
  fieldErrors?: Partial<Record<Field, string>>;
  /** What was typed, to show again (never the password). */
  url?: string;
  username?: string;
}

const EXAMPLES: [string, string][] = [
  ["Fastmail", "https://caldav.fastmail.com/"],
  ["iCloud", "https://caldav.icloud.com/"],
  ["Nextcloud", "https://cloud.example.com/remote.php/dav/"],
  ["Radicale", "http://localhost:5232/"],
];

function connectedCard(account: PageAccount, status: CalendarStatus, now: number): Html {
  return html`<section class="card" aria-labelledby="connected-h">
    <h2 id="connected-h">Connected calendar</h2>
    ${alertBox("error", status.problem ? html`<strong>The last use failed.</strong> ${status.problem}` : null)}
    <dl class="facts">
      <dt>Calendar</dt><dd>${status.calendarName ?? html`<span class="muted">unknown</span>`}</dd>
      <dt>Server</dt><dd class="mono">${status.url ?? ""}</dd>
      <dt>User name</dt><dd>${status.username ?? ""}</dd>
      <dt>Connected</dt><dd>${ago(status.connectedAt, now)}</dd>
    </dl>
    <details class="confirm">
      <summary class="btn btn-danger-quiet">Disconnect…</summary>
      <form method="post" action="/settings/calendar/disconnect" class="confirm-box">
        ${csrfField(account)}
        <p>Disconnect “${status.calendarName ?? "this calendar"}”? Crew forgets the saved password; the calendar itself is not changed.</p>
        <button type="submit" class="btn btn-danger">Disconnect calendar</button>
      </form>
    </details>
  </section>`;
}

function connectForm(account: PageAccount, view: CalendarView, reconnect: boolean): Html {
  const errors = view.fieldErrors ?? {};
  const first = (["url", "username", "password"] as const).find((f) => errors[f]);
  // Without JavaScript nothing else can take the focus to the field to correct.
  const attrs = (f: Field) =>
    errors[f]
      ? html` aria-invalid="true" aria-describedby="cal-${f}-error cal-${f}-help"${first === f ? html` autofocus` : ""}`
      : html` aria-describedby="cal-${f}-help"`;
  const fieldError = (f: Field) => (errors[f] ? html`<p class="field-error" id="cal-${f}-error">${errors[f]}</p>` : "");
  return html`<section class="card" aria-labelledby="connect-h">
    <h2 id="connect-h">${reconnect ? "Reconnect or switch calendar" : "Connect a calendar"}</h2>
    <form method="post" action="/settings/calendar" class="stack">
      ${csrfField(account)}
      <div class="field">
        <label for="cal-url">CalDAV URL</label>
        <input id="cal-url" name="url" required maxlength="2000" inputmode="url" spellcheck="false" autocomplete="url" placeholder="https://caldav.example.com/" value="${view.url ?? ""}"${attrs("url")}>
        ${fieldError("url")}
        <p class="muted small" id="cal-url-help">The server's CalDAV address, or the address of one calendar. E.g. ${EXAMPLES.map(([name, url], i) => html`${i ? ", " : ""}${name} <code>${url}</code>`)}.</p>
      </div>
      <div class="field">
        <label for="cal-username">User name</label>
        <input id="cal-username" name="username" required maxlength="200" spellcheck="false" autocomplete="username" value="${view.username ?? ""}"${attrs("username")}>
        ${fieldError("username")}
        <p class="muted small" id="cal-username-help">Often your email address.</p>
      </div>
      <div class="field">
        <label for="cal-password">Password</label>
        <input id="cal-password" name="password" type="password" required maxlength="1000" autocomplete="off"${attrs("password")}>
        ${fieldError("password")}
        <p class="muted small" id="cal-password-help">Use an app password where your provider offers one. Crew stores it encrypted and never shows it again.</p>
      </div>
      <div><button type="submit" class="btn btn-primary">${reconnect ? "Connect" : "Connect calendar"}</button></div>
    </form>
  </section>`;
}

async function calendarPage(deps: AppDeps, c: Context<AppEnv>, found: ValidSession, view: CalendarView, status = 200) {
  const account = accountOf(found);
  const current = await calendarStatus(deps, sessionPrincipalOf(found));
  const invalid = Object.keys(view.fieldErrors ?? {}).length > 0;
  const planNote = planIncludes(found.user.plan, "write")
    ? ""
    : alertBox(
        "info",
        html`Your plan (<strong>${found.user.plan}</strong>) does not include the calendar tools; you can connect a calendar now, and they work once the plan includes write access (operator, team_enterprise).`,
      );
  const body = html`<h1>Calendar</h1>
<p class="lead">Connect a CalDAV calendar so your AI tools can find open time (<code>crew_find_time</code>) and add events (<code>crew_calendar_create</code>) through Crew.</p>
${planNote}
${alertBox("error", view.error ?? (invalid ? "The calendar was not connected. Correct the fields marked below." : null))}
${alertBox("success", view.notice)}
<div class="grid-keys">
  ${current.connected ? connectedCard(account, current, deps.clock.now()) : html`<section class="card" aria-labelledby="connected-h"><h2 id="connected-h">Connected calendar</h2><p class="muted">No calendar connected.</p></section>`}
  ${connectForm(account, view, current.connected)}
</div>`;
  return renderPage(c, { title: "Calendar", body, account, active: "/settings/calendar" }, status);
}

const NOTICES: Record<string, string> = {
  connected: "Calendar connected.",
  disconnected: "Calendar disconnected.",
  none: "No calendar was connected.",
};

export function calendarPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/settings/calendar", session(deps), async (c) => {
    const found = c.var.session;
    return calendarPage(deps, c, found, { notice: NOTICES[c.req.query("done") ?? ""] });
  });

  const rejected: PageRenderer = (deps, c, found, state, status) => {
    const errors = state?.errors ?? {};
    const fieldErrors: CalendarView["fieldErrors"] = {};
    for (const [path, message] of Object.entries(errors)) if (path !== "(body)") fieldErrors[path as Field] ??= message;
    const typed = { url: state?.values.url ?? "", username: state?.values.username ?? "" };
    return calendarPage(deps, c, found, { fieldErrors, error: errors["(body)"], ...typed }, status);
  };

  router.post("/settings/calendar", (c) =>
    handleForm(deps, c, rejected, async (found, form) => {
      const raw = { url: form.get("url") ?? "", username: form.get("username") ?? "", password: form.get("password") ?? "" };
      await runOperation(deps, c, found, connectCalendarIntegrationOp, raw);
      return "/settings/calendar?done=connected";
    }),
  );

  router.post("/settings/calendar/disconnect", (c) =>
    handleForm(deps, c, rejected, async (found) => {
      const removed = await runOperation(deps, c, found, disconnectCalendarIntegrationOp, {}).then(
        () => true,
        (error) => {
          if (error instanceof ApiError && error.status === 404) return false;
          throw error;
        },
      );
      return `/settings/calendar?done=${removed ? "disconnected" : "none"}`;
    }),
  );

  return router;
}
