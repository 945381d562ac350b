/**
 * `/settings/notifications` (src/docs/notes/delivery.md): everyone's own preferences (the briefing by mail, as a
 * Slack DM); for owners also the Teams webhook and the delivery log of every mail, Slack and Teams
 * message (status, attempts, the last error). Plain CSRF-checked forms calling the same functions
 * as /api/me/notifications and /api/integrations/teams.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type * as v from "valibot";
import { isOwner } from "../auth/roles.ts";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ago, alertBox, csrfField, type Html, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { testTeamsOp } from "../operations/channel-tests.ts";
import { connectTeamsOp, disconnectTeamsOp, getTeamsOp, slackStatus } from "../operations/channels.ts";
import { getMyNotificationsOp, listMessagesOp, updateMyNotificationsOp } from "../operations/notifications.ts";
import { type FormState, handleForm, withDone } from "./form-flow.ts";
import { runOperation, runOptional } from "./run-operation.ts";

const PATH = "/settings/notifications";
const NOTICES: Record<string, string> = {
  saved: "Preferences saved.",
  teams: "Teams webhook saved: the morning standup will be posted there.",
  "teams-removed": "Teams webhook removed.",
  "teams-tested": "Test message sent: look for it in the Teams channel.",
};

function logTable(rows: v.InferOutput<typeof listMessagesOp.output>["messages"], now: number): Html {
  if (rows.length === 0) return html`<p class="muted">Nothing sent yet.</p>`;
  return html`<div class="table-wrap"><table class="table stack">
  <caption class="sr-only">Messages, newest first</caption>
  <thead><tr><th scope="col">Message</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Queued</th></tr></thead>
  <tbody>${rows.map(
    (m) => html`<tr>
    <td data-label="Message">${m.kind} by ${m.channel === "email" ? "email" : m.channel === "slack" ? "Slack" : "Teams"}</td>
    <td data-label="To">${m.userEmail ?? html`<span class="muted">the channel</span>`}</td>
    <td data-label="Status"><span class="badge">${m.status}</span></td>
    <td data-label="Attempts">${m.attempts}</td>
    <td data-label="Last error" class="small">${m.lastError ?? ""}</td>
    <td data-label="Queued" class="nowrap">${ago(m.createdAt, now)}</td>
  </tr>`,
  )}</tbody>
</table></div>`;
}

async function render(deps: AppDeps, c: Context<AppEnv>, found: ValidSession, state: FormState | null, status = 200): Promise<Response> {
  const account = accountOf(found);
  const owner = isOwner(found.user);
  const orgId = found.user.orgId;
  const [prefs, slack, teams, log] = await Promise.all([
    runOperation(deps, c, found, getMyNotificationsOp, {}),
    slackStatus(deps, orgId),
    owner ? runOperation(deps, c, found, getTeamsOp, {}) : null,
    owner ? runOperation(deps, c, found, listMessagesOp, { limit: 50 }).then((l) => l.messages) : [],
  ]);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const error = state?.errors["(body)"] ?? state?.errors.webhookUrl;
  const body = html`<h1>Notifications</h1>
${alertBox("success", notice)}${alertBox("error", error)}
<section class="card" aria-labelledby="prefs-h">
  <h2 id="prefs-h">Your daily briefing</h2>
  ${deps.config.mail ? "" : alertBox("info", "Mail is not set up on this server (SMTP_URL, MAIL_FROM): no briefing mail goes out until it is.")}
  <form method="post" action="${PATH}">${csrfField(account)}
    <p><label><input type="checkbox" name="briefingEmail" value="on"${prefs.briefingEmail ? html` checked` : ""}> By email, after the morning briefing run</label></p>
    <p><label><input type="checkbox" name="briefingSlack" value="on"${prefs.briefingSlack ? html` checked` : ""}> As a Slack direct message${slack.connected ? "" : html` <span class="muted">(Slack is not connected yet)</span>`}</label></p>
    <p class="muted small">Slack finds you by your Crew email (${found.user.email}); if no Slack member has it, the DM is skipped and the delivery log says so.</p>
    <button type="submit" class="btn btn-primary">Save preferences</button>
  </form>
</section>
${
  owner && teams
    ? html`<section class="card" aria-labelledby="teams-h">
  <h2 id="teams-h">Microsoft Teams</h2>
  ${
    teams.connected
      ? html`<p>The morning standup is posted to a Teams workflow at <span class="mono">${teams.host}</span>.</p>
  <form method="post" action="${PATH}/teams/test" class="inline">${csrfField(account)}<button type="submit" class="btn">Send a test message</button></form>
  <form method="post" action="${PATH}/teams/delete" class="inline">${csrfField(account)}<button type="submit" class="btn btn-danger">Remove the Teams webhook</button></form>`
      : html`<p class="muted">No Teams webhook saved.</p>`
  }
  <form method="post" action="${PATH}/teams">${csrfField(account)}
    <p><label for="webhookUrl">Incoming-webhook URL (Teams Workflows)</label><br>
    <input id="webhookUrl" name="webhookUrl" type="url" class="input" required value="${state?.values.webhookUrl ?? ""}" autocomplete="off"></p>
    <button type="submit" class="btn">Save the Teams webhook</button>
  </form>
</section>
<section class="card" aria-labelledby="log-h">
  <h2 id="log-h">Delivery log</h2>
  <p class="muted small">Every mail, Slack and Teams message, newest first. Failed attempts are retried after 5 s, 30 s, 2 min, 10 min, 1 h and 6 h.</p>
  ${logTable(log, deps.clock.now())}
</section>`
    : ""
}`;
  return renderPage(c, { title: "Notifications", body, account, active: PATH }, status);
}

export function notificationsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get(PATH, session(deps), (c) => render(deps, c, c.var.session, null));
  router.post(PATH, (c) =>
    handleForm(deps, c, render, async (found, form) => {
      await runOperation(deps, c, found, updateMyNotificationsOp, {
        briefingEmail: form.get("briefingEmail") === "on",
        briefingSlack: form.get("briefingSlack") === "on",
      });
      return withDone(PATH, "saved");
    }),
  );
  router.post(`${PATH}/teams`, (c) =>
    handleForm(deps, c, render, async (found, form) => {
      await runOperation(deps, c, found, connectTeamsOp, { webhookUrl: form.get("webhookUrl") ?? "" });
      return withDone(PATH, "teams");
    }),
  );
  router.post(`${PATH}/teams/test`, (c) =>
    handleForm(deps, c, render, async (found) => {
      const sent = await runOperation(deps, c, found, testTeamsOp, {});
      if (sent.ok) return withDone(PATH, "teams-tested");
      const errors = { "(body)": `The test message did not arrive: ${sent.error}` };
      return render(deps, c, found, { errors, values: {}, sent: new URLSearchParams() }, 502);
    }),
  );
  router.post(`${PATH}/teams/delete`, (c) =>
    handleForm(deps, c, render, async (found) => {
      await runOptional(deps, c, found, disconnectTeamsOp, {}); // none connected: nothing to remove
      return withDone(PATH, "teams-removed");
    }),
  );
  return router;
}
