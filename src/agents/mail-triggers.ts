/**
 * New mail starts the inbox agent (src/docs/notes/connections.md). Every 60 s one process asks each
 * connected mailbox of the organizations where the inbox agent has `runOnNewMail` whether
 * non-bulk mail arrived since the agent last read it — Gmail's `history.list`, Graph's delta link,
 * read without moving the agent's own cursor — and an IMAP mailbox says so itself through IDLE
 * (src/integrations/mail/idle.ts). A mailbox with new mail starts one run (`trigger: "mail"`)
 * unless it started one in the last 5 minutes: that is a lease per mailbox, so processes sharing
 * the database agree, and mail arriving meanwhile is still unread at the next poll and joins the
 * next run. The run is the scheduler's (runAgent), so the model, the sources and the budget apply.
 */
import { ConnectionUnavailable, type OpenConnection, ProviderError, withConnection } from "../integrations/connections/access.ts";
import { KEPT_HEADERS } from "../integrations/connections/mail-message.ts";
import { mailConnectionsOf } from "../integrations/connections/mail-source.ts";
import { gmailNewIds } from "../integrations/google/gmail.ts";
import { type IdleWatch, watchMailbox } from "../integrations/mail/idle.ts";
import { outlookChanges } from "../integrations/microsoft/outlook-mail.ts";
import { openMailbox } from "../integrations/sources.ts";
import { MINUTE } from "../lib/clock.ts";
import { randomSecret } from "../lib/random.ts";
import type { OrgConnection } from "../store/integrations/connections.ts";
import { mailboxOf, type StoredSource } from "../store/integrations/sources.ts";
import { takeLease } from "../store/leases/leases.ts";
import { agentTriggers, orgsRunningOnNewMail } from "../store/runs/agent-triggers.ts";
import { type AgentRunDeps, runAgent } from "./run-agent.ts";

export const MAIL_POLL_MS = MINUTE;
/** At most one run per mailbox in this long. */
export const MAIL_DEBOUNCE_MS = 5 * MINUTE;
/** New messages whose headers are read to tell bulk mail apart: the rest waits for the run. */
const CHECKED_PER_POLL = 5;
const INBOX = "inbox";

export type MailTriggerDeps = AgentRunDeps & Required<Pick<AgentRunDeps, "outbound">> & { config: NonNullable<AgentRunDeps["config"]> };

/** Bulk or automatic mail by its headers (RFC 2369 List-*, RFC 3834 Auto-Submitted, Precedence) or a no-reply sender. */
export function isBulk(headers: Record<string, string>, from: string | undefined): boolean {
  if (headers["list-unsubscribe"] || headers["list-id"]) return true;
  if (/^(bulk|list|junk)$/i.test(headers.precedence?.trim() ?? "")) return true;
  const auto = headers["auto-submitted"]?.trim().toLowerCase();
  if (auto && auto !== "no") return true;
  return /^(no-?reply|do-?not-?reply|mailer-daemon)@/i.test(from ?? "");
}

const headerMap = (list: { name: string; value: string }[] | undefined) =>
  Object.fromEntries((list ?? []).filter((h) => KEPT_HEADERS.includes(h.name.toLowerCase())).map((h) => [h.name.toLowerCase(), h.value]));

async function gmailHasNew(conn: OpenConnection): Promise<boolean> {
  if (!conn.state.cursor) return false; // never read yet: the first read is the schedule's
  const changed = await gmailNewIds(conn, conn.state.cursor);
  if (!changed) return true; // the cursor is too old: the run starts over
  for (const id of changed.ids.slice(-CHECKED_PER_POLL)) {
    const query = new URLSearchParams({ format: "metadata" });
    for (const name of ["From", ...KEPT_HEADERS]) query.append("metadataHeaders", name);
    try {
      const m = await conn.call<{ payload?: { headers?: { name: string; value: string }[] } }>(
        `/gmail/v1/users/me/messages/${encodeURIComponent(id)}?${query}`,
      );
      const from = m.payload?.headers
        ?.find((h) => h.name.toLowerCase() === "from")
        ?.value.match(/<([^>]+)>|(\S+@\S+)/)
        ?.slice(1)
        .find(Boolean);
      if (!isBulk(headerMap(m.payload?.headers), from)) return true;
    } catch (error) {
      if (!(error instanceof ProviderError && error.status === 404)) throw error;
    }
  }
  return false;
}

async function outlookHasNew(conn: OpenConnection, now: number): Promise<boolean> {
  if (!conn.state.cursor) return false;
  const { messages } = await outlookChanges(conn, conn.state.cursor, now, 1);
  for (const m of messages.slice(-CHECKED_PER_POLL)) {
    const extra = await conn.call<{ internetMessageHeaders?: { name: string; value: string }[] }>(
      `/me/messages/${encodeURIComponent(m.id)}?$select=internetMessageHeaders`,
    );
    if (!isBulk(headerMap(extra.internetMessageHeaders), m.from?.emailAddress?.address)) return true;
  }
  return false;
}

async function hasNewMail(deps: MailTriggerDeps, orgId: string, row: OrgConnection): Promise<boolean> {
  try {
    return await withConnection(deps, orgId, row, (conn) =>
      row.provider === "google" ? gmailHasNew(conn) : outlookHasNew(conn, deps.clock.now()),
    );
  } catch (error) {
    if (error instanceof ConnectionUnavailable) return false; // alerted (or in backoff) already
    throw error;
  }
}

/** Takes the mailbox's debounce lease: false while a run it started is less than MAIL_DEBOUNCE_MS old. */
async function mailboxIsDue(deps: MailTriggerDeps, orgId: string, mailbox: string): Promise<boolean> {
  const now = deps.clock.now();
  // A fresh holder each time: the lease is taken only once the previous one expired.
  return takeLease(deps.db, `new-mail:${orgId}:${mailbox}`, `run:${randomSecret(8)}`, now, now + MAIL_DEBOUNCE_MS);
}

async function startInboxRun(deps: MailTriggerDeps, orgId: string): Promise<string | null> {
  const run = await runAgent(deps, orgId, INBOX, { kind: "mail" });
  if (run && run.status === "error") deps.log.warn("mail-triggered run failed", { org_id: orgId, summary: run.summary });
  return run?.runId ?? null;
}

/** New mail in one mailbox (IMAP IDLE): one inbox run unless that mailbox started one in the last MAIL_DEBOUNCE_MS. */
export async function onNewMail(deps: MailTriggerDeps, orgId: string, mailbox: string): Promise<string | null> {
  if (!(await agentRunsOnNewMail(deps, orgId))) return null;
  return (await mailboxIsDue(deps, orgId, mailbox)) ? startInboxRun(deps, orgId) : null;
}

const agentRunsOnNewMail = async (deps: MailTriggerDeps, orgId: string) =>
  (await agentTriggers(deps.db, orgId, INBOX))?.runOnNewMail ?? false;

/** One poll of every connected mailbox: one run per organization whose due mailboxes have new mail; the ids of the runs. */
export async function pollConnectedMailboxes(deps: MailTriggerDeps): Promise<string[]> {
  const started: string[] = [];
  for (const orgId of await orgsRunningOnNewMail(deps.db, INBOX)) {
    let due = false;
    for (const row of await mailConnectionsOf(deps.db, orgId)) {
      // The one run reads every mailbox: each with new mail is debounced by it.
      if ((await hasNewMail(deps, orgId, row)) && (await mailboxIsDue(deps, orgId, `${row.provider}:${row.userId}`))) due = true;
    }
    const runId = due ? await startInboxRun(deps, orgId) : null;
    if (runId) started.push(runId);
  }
  return started;
}

/** The IDLE watchers of the organizations' IMAP mailboxes, kept in step with the sources by `reconcile`. */
export function imapWatchers(deps: MailTriggerDeps) {
  const watching = new Map<string, { key: string; watch: IdleWatch }>();
  const stopOne = async (orgId: string) => {
    await watching.get(orgId)?.watch.stop();
    watching.delete(orgId);
  };
  return {
    watching,
    /** Starts a watcher for each IMAP mailbox of an organization with runOnNewMail, stops the others. */
    async reconcile(): Promise<void> {
      const wanted = new Map<string, StoredSource>();
      for (const orgId of await orgsRunningOnNewMail(deps.db, INBOX)) {
        const row = await mailboxOf(deps.db, orgId);
        if (row) wanted.set(orgId, row);
      }
      for (const [orgId, w] of watching) {
        const row = wanted.get(orgId);
        if (!row || w.key !== `${row.id}:${row.updatedAt}`) await stopOne(orgId);
      }
      for (const [orgId, row] of wanted) {
        if (watching.has(orgId)) continue;
        const settings = await openMailbox(deps, row);
        if ("reason" in settings) continue; // the next read raises the imap alert
        const watch = watchMailbox(
          deps.outbound,
          settings,
          () => {
            onNewMail(deps, orgId, "imap").catch((error) =>
              deps.log.error("mail-triggered run failed", { org_id: orgId, error: String(error) }),
            );
          },
          (reason) => deps.log.debug("imap idle problem", { org_id: orgId, reason }),
        );
        watching.set(orgId, { key: `${row.id}:${row.updatedAt}`, watch });
      }
    },
    async stop(): Promise<void> {
      for (const orgId of [...watching.keys()]) await stopOne(orgId);
    },
  };
}
