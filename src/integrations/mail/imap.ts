/**
 * Reading a mailbox for the `inbox` agent (src/docs/notes/sources.md) with imapflow and postal-mime. Read-only by
 * construction: the folder is opened with EXAMINE (RFC 3501 §6.3.2: no flag can change, not even
 * \Recent) and message bodies are fetched as BODY.PEEK[] (§6.4.5: no implicit \Seen) — Crew never
 * sets a flag, moves or deletes mail. Each read takes only messages with a UID above the last one
 * seen (unless the folder's UIDVALIDITY changed, RFC 3501 §2.3.1.1), at most `maxItems` newest.
 * The host goes through the outbound policy (src/docs/notes/outbound-requests.md) and the connection is made to the vetted
 * address, with the host name as TLS server name.
 */
import PostalMime from "postal-mime";
import type { OutboundPolicy } from "../../lib/outbound-policy.ts";
import { htmlToText, tidy, truncate } from "../feeds/plain-text.ts";
import { OutboundRefused, vetHost } from "../outbound.ts";

export interface MailboxSettings {
  host: string;
  port: number;
  /** Implicit TLS (IMAPS, usually port 993); false: plain connection upgraded by STARTTLS when offered. */
  tls: boolean;
  username: string;
  password: string;
  folder: string;
}

/** Where the last successful read ended. */
export interface MailCursor {
  uidValidity?: string;
  lastUid?: number;
}

export interface MailMessage {
  uid: number;
  /** The Message-ID header, without angle brackets (the evidence a record cites, src/docs/notes/model.md). */
  messageId?: string;
  subject: string;
  from?: { name?: string; email?: string };
  /** The To and Cc addresses, lower-case (who else a contact may come from, src/docs/notes/prompt-injection.md#caps). */
  recipients?: string[];
  /** Sent in bulk (List-Unsubscribe, Precedence: bulk/list/junk, Auto-Submitted, a no-reply sender): never a contact. */
  bulk?: boolean;
  /** Epoch ms. */
  date: number;
  text: string;
}

/** A no-reply or robot sender's local part (noreply@, no-reply@, donotreply@, mailer-daemon@, notifications@ …). */
const ROBOT_SENDER = /^(?:no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?|notifications?|newsletters?)(?:[+._-].*)?$/i;

/** Whether a message was sent in bulk or by a machine (RFC 2369 List-*, RFC 3834 Auto-Submitted, Precedence). */
export function isBulkMail(headers: readonly { key: string; value: string }[], from: string | undefined): boolean {
  for (const h of headers) {
    const key = h.key.toLowerCase();
    const value = h.value.trim().toLowerCase();
    if (key === "list-unsubscribe" || key === "list-id") return true;
    if (key === "precedence" && /^(?:bulk|list|junk)\b/.test(value)) return true;
    if (key === "auto-submitted" && value !== "" && !value.startsWith("no")) return true;
  }
  const local = from?.slice(0, from.lastIndexOf("@")) ?? "";
  return ROBOT_SENDER.test(local);
}

type Addressed = { address?: string; group?: { address?: string }[] };
const addressesOf = (list: readonly Addressed[] | undefined): string[] =>
  (list ?? [])
    .flatMap((a) => (a.group ? a.group.map((g) => g.address ?? "") : [a.address ?? ""]))
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.includes("@"));

export type MailFailure = "rejected" | "unreachable" | "folder" | "protocol";

/** Why the mailbox could not be read. `message` is for the user (never a password); `reason` for the log. */
export class MailError extends Error {
  constructor(
    readonly kind: MailFailure,
    message: string,
    readonly reason: string = message,
  ) {
    super(message);
  }
}

/** The most of one message read: plenty for text, bounded against huge attachments. */
const MAX_MESSAGE_BYTES = 256 * 1024;
const TIMEOUT_MS = 15_000;

/** How far a connection got before it failed: a failure after the greeting is never "could not be reached". */
interface Progress {
  /** The server's IMAP greeting arrived: TCP (and implicit TLS) worked. */
  answered: boolean;
  /** The login succeeded. */
  signedIn: boolean;
}

/** A TLS handshake that failed: the port speaks no TLS, or TLS of another kind (Node's ERR_SSL_* and EPROTO). */
const TLS_FAILURE = /^(ERR_SSL_|ERR_TLS_|EPROTO$)/;

function classify(error: unknown, settings: MailboxSettings, progress: Progress): MailError {
  if (error instanceof MailError) return error;
  const e = error as { authenticationFailed?: boolean; code?: string; message?: string; responseText?: string };
  const reason = `${e?.code ?? ""} ${e?.responseText ?? e?.message ?? String(error)}`.trim();
  if (e?.authenticationFailed) return new MailError("rejected", "The mail server refused the user name and password.", reason);
  if (error instanceof OutboundRefused)
    return new MailError("unreachable", `The mail server ${settings.host} could not be reached.`, error.reason);
  const code = e?.code ?? "";
  if (TLS_FAILURE.test(code)) {
    return new MailError(
      "protocol",
      settings.tls
        ? `The mail server ${settings.host} answered on port ${settings.port}, but not with TLS: turn TLS off (STARTTLS is used when offered) or use the IMAPS port, usually 993.`
        : `The mail server ${settings.host} answered on port ${settings.port}, but the TLS upgrade failed.`,
      reason,
    );
  }
  // The greeting came, so the host was reached: a connection that ends before the login succeeds
  // is the server ending the sign-in (too many connections, IMAP turned off for the account, an
  // app password required), not a network failure.
  if (progress.answered && !progress.signedIn) {
    const said = e?.responseText ? `: "${e.responseText}"` : "";
    return new MailError(
      "rejected",
      `The mail server ${settings.host} answered but ended the sign-in${said}. Check the user name and password, and that IMAP is turned on for the account (some providers need an app password).`,
      reason,
    );
  }
  if (
    !progress.answered &&
    (/^(E[A-Z]+|ETIMEDOUT|NoConnection|ConnectionClosed|ClosedAfterConnect.*|CONNECT_TIMEOUT|GREETING_TIMEOUT)$/.test(code) ||
      /timeout|connect/i.test(reason))
  ) {
    return new MailError("unreachable", `The mail server ${settings.host} could not be reached.`, reason);
  }
  return new MailError("protocol", "The mail server did not answer as expected.", reason);
}

const isIpLiteral = (host: string) => /^[\d.]+$/.test(host) || host.includes(":");

/** The connection to the vetted address of the mailbox's host (also the IDLE watcher's, src/integrations/mail/idle.ts). */
export async function imapOptions(policy: OutboundPolicy, settings: MailboxSettings) {
  const address = await vetHost(policy, settings.host);
  return {
    host: address,
    port: settings.port,
    secure: settings.tls,
    // TLS is checked against the name the user gave, not the address it resolved to.
    ...(isIpLiteral(settings.host) ? {} : { servername: settings.host }),
    auth: { user: settings.username, pass: settings.password },
    logger: false as const,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
  };
}

/**
 * The messages that arrived after `cursor`, oldest first, at most `maxItems` (the newest ones),
 * and the cursor after them. `maxItems` 0 only checks that the mailbox opens.
 */
export async function readMailbox(
  policy: OutboundPolicy,
  settings: MailboxSettings,
  cursor: MailCursor,
  limits: { maxItems: number; maxChars: number },
): Promise<{ messages: MailMessage[]; cursor: MailCursor }> {
  // Loaded on first use: only servers with a mailbox pay for the IMAP client.
  const { ImapFlow } = await import("imapflow");
  let client: InstanceType<typeof ImapFlow> | null = null;
  try {
    client = new ImapFlow({ ...(await imapOptions(policy, settings)), disableAutoIdle: true, socketTimeout: TIMEOUT_MS });
    // A dropped connection is reported by the pending command; without a listener it would crash the process.
    client.on("error", () => {});
    await client.connect();
    let mailbox: Awaited<ReturnType<typeof client.mailboxOpen>>;
    try {
      mailbox = await client.mailboxOpen(settings.folder, { readOnly: true });
    } catch (error) {
      throw new MailError(
        "folder",
        `The folder "${settings.folder}" was not found in the mailbox.`,
        String((error as Error)?.message ?? error),
      );
    }
    const uidValidity = String(mailbox.uidValidity);
    const after = cursor.uidValidity === uidValidity ? (cursor.lastUid ?? 0) : 0;
    let uids: number[] = [];
    if (mailbox.exists > 0) {
      // "n:*" always includes the highest UID even below n (RFC 3501 §6.4.8): filtered below.
      const found = await client.search({ uid: `${after + 1}:*` }, { uid: true });
      uids = (Array.isArray(found) ? found : []).filter((uid) => uid > after).sort((a, b) => a - b);
    }
    const next: MailCursor = { uidValidity, lastUid: Math.max(after, ...uids) };
    const wanted = limits.maxItems > 0 ? uids.slice(-limits.maxItems) : [];
    const messages: MailMessage[] = [];
    if (wanted.length > 0) {
      const fetched = await client.fetchAll(
        wanted.join(","),
        { uid: true, internalDate: true, source: { start: 0, maxLength: MAX_MESSAGE_BYTES } },
        { uid: true },
      );
      for (const message of fetched) {
        if (!message.source) continue;
        messages.push(await parseMessage(message.uid, message.source, message.internalDate, limits.maxChars));
      }
      messages.sort((a, b) => a.uid - b.uid);
    }
    return { messages, cursor: next };
  } catch (error) {
    // `greetingReceived` is imapflow's own flag, set when the greeting arrives (not in its types).
    const answered = (client as { greetingReceived?: boolean } | null)?.greetingReceived === true;
    throw classify(error, settings, { answered, signedIn: Boolean(client?.authenticated) });
  } finally {
    if (client) await client.logout().catch(() => client?.close());
  }
}

/** One raw RFC 5322 message as the inbox agent reads it (also the eval sets' .eml files). */
export async function parseMessage(
  uid: number,
  source: Uint8Array,
  internalDate: Date | string | undefined,
  maxChars: number,
): Promise<MailMessage> {
  const email = await PostalMime.parse(source);
  const text = email.text ? tidy(email.text) : email.html ? htmlToText(email.html) : "";
  const dated = email.date ? Date.parse(email.date) : Number.NaN;
  const received = internalDate ? new Date(internalDate).getTime() : Number.NaN;
  const from = email.from && "address" in email.from ? email.from : undefined;
  const messageId = email.messageId?.trim().replace(/^<|>$/g, "");
  const recipients = [...addressesOf(email.to as Addressed[] | undefined), ...addressesOf(email.cc as Addressed[] | undefined)];
  return {
    uid,
    ...(messageId ? { messageId } : {}),
    subject: truncate(tidy(email.subject ?? "") || "(no subject)", 300),
    ...(from ? { from: { ...(from.name ? { name: from.name } : {}), ...(from.address ? { email: from.address } : {}) } } : {}),
    recipients,
    bulk: isBulkMail(email.headers ?? [], from?.address),
    date: Number.isNaN(dated) ? (Number.isNaN(received) ? 0 : received) : dated,
    text: truncate(text, maxChars),
  };
}
