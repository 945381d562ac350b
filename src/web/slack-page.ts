/**
 * `/settings/slack` (src/docs/notes/delivery.md, owners): connect the workspace (bot token — sealed, never shown —,
 * the standup channel, the channels the Slack agent reads), see what was sent to Slack lately
 * (including briefing DMs skipped because no Slack member has the person's Crew email), and
 * disconnect. Plain CSRF-checked forms calling the same operations as /api/integrations/slack.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ago, alertBox, csrfField, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { testSlackOp } from "../operations/channel-tests.ts";
import { connectSlackOp, disconnectSlackOp, getSlackOp } from "../operations/channels.ts";
import { listMessagesOp } from "../operations/notifications.ts";
import { type FormState, handleForm, withDone } from "./form-flow.ts";
import { owner } from "./owner.ts";
import { runOperation, runOptional } from "./run-operation.ts";

const PATH = "/settings/slack";
const NOTICES: Record<string, string> = {
  connected: "Slack connected.",
  removed: "Slack disconnected.",
  tested: "Test message sent: look for it in the standup channel.",
};

async function render(deps: AppDeps, c: Context<AppEnv>, found: ValidSession, state: FormState | null, status = 200): Promise<Response> {
  const account = accountOf(found);
  const [slack, { messages: log }] = await Promise.all([
    runOperation(deps, c, found, getSlackOp, {}),
    runOperation(deps, c, found, listMessagesOp, { limit: 100 }),
  ]);
  const sent = log.filter((m) => m.channel === "slack").slice(0, 20);
  const errors = state?.errors ?? {};
  const field = (name: string) => (errors[name] ? html`<span class="field-error" role="alert">${errors[name]}</span>` : "");
  const body = html`<h1>Slack</h1>
${alertBox("success", NOTICES[c.req.query("done") ?? ""])}${alertBox("error", errors["(body)"])}
<section class="card" aria-labelledby="status-h">
  <h2 id="status-h">Connection</h2>
  ${
    slack.connected
      ? html`<dl class="facts"><dt>Standup channel</dt><dd class="mono">${slack.channel}</dd>
    <dt>Read by the Slack agent</dt><dd class="mono">${slack.readChannels.join(", ") || html`<span class="muted">none</span>`}</dd>
    <dt>Bot token</dt><dd>set (never shown)</dd></dl>
  <form method="post" action="${PATH}/test" class="inline">${csrfField(account)}<button type="submit" class="btn">Send a test message</button></form>
  <form method="post" action="${PATH}/delete" class="inline">${csrfField(account)}<button type="submit" class="btn btn-danger">Disconnect Slack</button></form>`
      : html`<p class="muted">Not connected: standups are not posted to Slack, and the Slack agent says “Needs Slack”.</p>`
  }
</section>
<section class="card" aria-labelledby="connect-h">
  <h2 id="connect-h">${slack.connected ? "Replace the connection" : "Connect Slack"}</h2>
  <form method="post" action="${PATH}">${csrfField(account)}
    <p><label for="botToken">Bot token</label><br><input id="botToken" name="botToken" type="password" class="input" required autocomplete="off" placeholder="xoxb-…"> ${field("botToken")}</p>
    <p><label for="channel">Standup channel</label><br><input id="channel" name="channel" class="input" required value="${state?.values.channel ?? slack.channel ?? ""}" placeholder="#standup or C0123456789"> ${field("channel")}</p>
    <p><label for="readChannels">Channels the Slack agent reads (ids, separated by spaces or commas)</label><br><input id="readChannels" name="readChannels" class="input" value="${state?.values.readChannels ?? slack.readChannels.join(", ")}"> ${field("readChannels")}</p>
    <button type="submit" class="btn btn-primary">Save</button>
  </form>
  <p class="muted small">The bot needs chat:write, users:read.email and channels:history, and must be a member of these channels.</p>
</section>
<section class="card" aria-labelledby="sent-h">
  <h2 id="sent-h">Sent to Slack lately</h2>
  ${
    sent.length
      ? html`<ul>${sent.map(
          (m) =>
            html`<li>${m.kind === "briefing" ? html`Briefing DM to ${m.userEmail}` : "Standup post"}: <strong>${m.status}</strong>${m.lastError ? html` — ${m.lastError}` : ""} (${ago(m.createdAt, deps.clock.now())})</li>`,
        )}</ul>`
      : html`<p class="muted">Nothing yet.</p>`
  }
</section>`;
  return renderPage(c, { title: "Slack", body, account, active: PATH }, status);
}

export function slackPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get(PATH, session(deps), owner(), (c) => render(deps, c, c.var.session, null));
  router.post(PATH, (c) =>
    handleForm(deps, c, render, async (found, form) => {
      const readChannels = (form.get("readChannels") ?? "")
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean);
      await runOperation(deps, c, found, connectSlackOp, {
        botToken: form.get("botToken") ?? "",
        channel: form.get("channel") ?? "",
        readChannels,
      });
      return withDone(PATH, "connected");
    }),
  );
  router.post(`${PATH}/test`, (c) =>
    handleForm(deps, c, render, async (found) => {
      const sent = await runOperation(deps, c, found, testSlackOp, {});
      if (sent.ok) return withDone(PATH, "tested");
      const errors = { "(body)": `The test message did not arrive: ${sent.error}` };
      return render(deps, c, found, { errors, values: {}, sent: new URLSearchParams() }, 502);
    }),
  );
  router.post(`${PATH}/delete`, (c) =>
    handleForm(deps, c, render, async (found) => {
      await runOptional(deps, c, found, disconnectSlackOp, {}); // none connected: nothing to remove
      return withDone(PATH, "removed");
    }),
  );
  return router;
}
