/**
 * Owner pages of src/docs/notes/operating.md in the web app: the audit log (/settings/audit) and the backups
 * (/settings/backups: written and restored, from the audit log, since the files live wherever
 * BACKUP_DIR points). Self-contained pages; the main navigation links them for owners.
 */
import { type Context, Hono } from "hono";
import { html } from "hono/html";
import type * as v from "valibot";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ago, type Html, renderPage } from "../html/layout.ts";
import { accountOf, session } from "../html/page-frame.ts";
import { words } from "../html/words.ts";
import { cronWords } from "../lib/cron-words.ts";
import { type AuditEntryView, listAuditOp } from "../operations/audit.ts";
import { listUsersOp } from "../operations/users.ts";
import { owner } from "./owner.ts";
import { runOperation } from "./run-operation.ts";

const PAGE_SIZE = 200;

type AuditEntry = v.InferOutput<typeof AuditEntryView>;

/** Who acted, by name: the page names people, never their internal ids. */
async function actorNames(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
): Promise<{ actorOf: (e: AuditEntry) => string; names: Map<string, string> }> {
  const { users } = await runOperation(deps, c, found, listUsersOp, {});
  const names = new Map(users.map((u) => [u.id, u.name || u.email]));
  const actorOf = (e: AuditEntry) =>
    e.actor.kind === "user"
      ? (names.get(e.actor.userId) ?? "a removed user")
      : e.actor.kind === "cli"
        ? "the command line"
        : words(e.actor.kind);
  return { actorOf, names };
}

/** What a record id's prefix names, for a subject shown in words (the id stays in the tooltip). */
const KIND_OF_ID: Record<string, string> = {
  src: "a source",
  whk: "a webhook",
  usr: "a user",
  act: "an action",
  con: "a contact",
  hof: "a handoff",
  ins: "an insight",
  sug: "a suggestion",
  grt: "a connected app",
  run: "a run",
  evl: "an evaluation",
  msg: "a message",
  alr: "an alert",
};

/** An audit entry's subject: a person by name, a record by its kind (id in the tooltip), anything else as written. */
function subjectText(subject: string | null, names: Map<string, string>): Html | string {
  if (!subject) return "";
  const named = names.get(subject);
  if (named) return named;
  // An API key is recorded by the SHA-256 of its secret, the only name Crew keeps of it.
  if (/^[0-9a-f]{64}$/.test(subject)) return html`<span title="${subject}">an API key</span>`;
  const kind = /^([a-z]{2,5})_[0-9A-Za-z]{6,}$/.exec(subject)?.[1];
  if (kind) return html`<span title="${subject}">${KIND_OF_ID[kind] ?? "a record"}</span>`;
  return subject;
}

/** "source.created" → "Source created"; the event's name stays in the tooltip. */
const eventText = (event: string) => html`<span title="${event}">${words(event.replaceAll(".", " "))}</span>`;

export function settingsPageRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get("/settings/audit", session(deps), owner(), async (c) => {
    const found = c.var.session;
    const { clock } = deps;
    const { entries } = await runOperation(deps, c, found, listAuditOp, { limit: PAGE_SIZE });
    const { actorOf, names } = await actorNames(deps, c, found);
    const body = html`<h1>Audit log</h1>
<p>Who did what in this organization, newest first (the latest ${PAGE_SIZE}; all of it with <code>crew audit</code>).</p>
${
  entries.length === 0
    ? html`<p class="empty">Nothing recorded yet.</p>`
    : html`<div class="table-wrap"><table class="table stack">
<thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Actor</th><th scope="col">Subject</th></tr></thead>
<tbody>${entries.map(
        (e) =>
          html`<tr><td data-label="When">${ago(e.at, clock.now())}</td><td data-label="Event">${eventText(e.event)}</td><td data-label="Actor">${actorOf(e)}</td><td data-label="Subject">${subjectText(e.subject, names)}</td></tr>`,
      )}</tbody>
</table></div>`
}`;
    return renderPage(c, { title: "Audit log", body, account: accountOf(found), active: "/settings/audit" });
  });

  router.get("/settings/backups", session(deps), owner(), async (c) => {
    const found = c.var.session;
    const { clock, config } = deps;
    const { entries: events } = await runOperation(deps, c, found, listAuditOp, { limit: 100, only: "backups" });
    const { actorOf } = await actorNames(deps, c, found);
    const body = html`<h1>Backups</h1>
<p>${
      config.backupDir
        ? html`Scheduled backups go to <code>${config.backupDir}</code> ${cronWords(config.backupSchedule)} (${config.defaultTimeZone}); the last ${config.backupKeep} are kept.`
        : html`No scheduled backups: set <code>BACKUP_DIR</code> (and <code>BACKUP_SCHEDULE</code>, <code>BACKUP_KEEP</code>). <code>crew backup</code> writes one now.`
    }</p>
<p>Keep <code>crew-secret</code> (or your <code>CREW_SECRET</code>) with the backups: without it the stored integration credentials cannot be decrypted.</p>
${
  events.length === 0
    ? html`<p class="empty">No backup written yet.</p>`
    : html`<div class="table-wrap"><table class="table stack">
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">File</th><th scope="col">Size</th></tr></thead>
<tbody>${events.map((e) => {
        const bytes = typeof e.detail.bytes === "number" ? `${Math.round(e.detail.bytes / 1024)} KiB` : "";
        return html`<tr><td data-label="When">${ago(e.at, clock.now())}</td><td data-label="What">${e.event === "backup.written" ? "written" : "restored"} (${actorOf(e)})</td><td data-label="File"><code>${e.subject ?? ""}</code></td><td data-label="Size">${bytes}</td></tr>`;
      })}</tbody>
</table></div>`
}`;
    return renderPage(c, { title: "Backups", body, account: accountOf(found), active: "/settings/backups" });
  });

  return router;
}
