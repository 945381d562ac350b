/**
 * Gmail as a mail source (src/docs/notes/connections.md), read-only (`gmail.readonly`), through
 * the Gmail REST API v1 with plain fetch: the first read takes the newest INBOX messages
 * (`users.messages.list`, then `users.messages.get` format=full) and the mailbox's current
 * `historyId` (`users.getProfile`); later reads ask only `users.history.list` from the last
 * `historyId` for messages added to INBOX — a mailbox with no change costs one request. A
 * `historyId` too old to answer (HTTP 404) starts over like a first read.
 */
import { type OpenConnection, ProviderError } from "../connections/access.ts";
import { addressesOf, bodyText, cleanMessageId, keptHeaders, type ProviderMail, subjectOf } from "../connections/mail-message.ts";

interface Part {
  mimeType?: string;
  headers?: { name: string; value: string }[];
  body?: { data?: string; size?: number };
  parts?: Part[];
}

interface GmailMessage {
  id: string;
  internalDate?: string;
  labelIds?: string[];
  payload?: Part;
}

interface HistoryPage {
  history?: { messagesAdded?: { message: { id: string; labelIds?: string[] } }[] }[];
  historyId?: string;
  nextPageToken?: string;
}

const API = "/gmail/v1/users/me";
/** Pages of history read at once: a mailbox that received more waits for the next read. */
const MAX_HISTORY_PAGES = 5;

const decoder = new TextDecoder();
function base64url(data: string): string {
  const binary = atob(data.replace(/-/g, "+").replace(/_/g, "/"));
  return decoder.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** The first part of the type, depth first (a multipart/alternative holds text/plain and text/html). */
function partOf(part: Part | undefined, type: string): Part | undefined {
  if (!part) return undefined;
  if (part.mimeType === type && part.body?.data) return part;
  for (const child of part.parts ?? []) {
    const found = partOf(child, type);
    if (found) return found;
  }
  return undefined;
}

/** Opens the message in Gmail, in the account it belongs to. */
export const gmailUrl = (email: string, id: string) => `https://mail.google.com/mail/u/${encodeURIComponent(email)}/#all/${id}`;

export function toMail(m: GmailMessage, email: string, maxChars: number): ProviderMail {
  const headers = m.payload?.headers ?? [];
  const header = (name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;
  const plain = partOf(m.payload, "text/plain")?.body?.data;
  const html = partOf(m.payload, "text/html")?.body?.data;
  const dated = Date.parse(header("date") ?? "");
  const messageId = cleanMessageId(header("message-id"));
  return {
    id: m.id,
    ...(messageId ? { messageId } : {}),
    subject: subjectOf(header("subject")),
    ...(addressesOf(header("from"))[0] ? { from: addressesOf(header("from"))[0] } : {}),
    to: addressesOf(header("to")),
    cc: addressesOf(header("cc")),
    headers: keptHeaders(headers),
    date: Number.isNaN(dated) ? Number(m.internalDate ?? 0) : dated,
    text: bodyText(plain && base64url(plain), html && base64url(html), maxChars),
    url: gmailUrl(email, m.id),
  };
}

/** New INBOX message ids since `cursor`, newest last, and the cursor after them; null when the cursor is too old. */
export async function gmailNewIds(conn: OpenConnection, cursor: string): Promise<{ ids: string[]; cursor: string } | null> {
  const ids: string[] = [];
  let next = cursor;
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
    const query = new URLSearchParams({ startHistoryId: cursor, historyTypes: "messageAdded", labelId: "INBOX" });
    if (pageToken) query.set("pageToken", pageToken);
    let answer: HistoryPage;
    try {
      answer = await conn.call<HistoryPage>(`${API}/history?${query}`);
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return null;
      throw error;
    }
    for (const h of answer.history ?? [])
      for (const added of h.messagesAdded ?? []) if (!ids.includes(added.message.id)) ids.push(added.message.id);
    if (answer.historyId) next = answer.historyId;
    pageToken = answer.nextPageToken;
    if (!pageToken) break;
  }
  return { ids, cursor: next };
}

/** The messages that arrived after `cursor` (all of INBOX's newest on a first read), at most `maxItems` newest, and the next cursor. */
export async function readGmail(
  conn: OpenConnection,
  cursor: string | undefined,
  limits: { maxItems: number; maxChars: number },
): Promise<{ messages: ProviderMail[]; cursor: string }> {
  let ids: string[];
  let next: string;
  const changed = cursor ? await gmailNewIds(conn, cursor) : null;
  if (changed) {
    ids = changed.ids.slice(-limits.maxItems);
    next = changed.cursor;
  } else {
    const profile = await conn.call<{ historyId: string }>(`${API}/profile`);
    const list = await conn.call<{ messages?: { id: string }[] }>(
      `${API}/messages?${new URLSearchParams({ labelIds: "INBOX", maxResults: String(Math.max(1, limits.maxItems)) })}`,
    );
    ids = limits.maxItems > 0 ? (list.messages ?? []).map((m) => m.id).reverse() : [];
    next = profile.historyId;
  }
  const messages: ProviderMail[] = [];
  for (const id of ids) {
    try {
      const m = await conn.call<GmailMessage>(`${API}/messages/${encodeURIComponent(id)}?format=full`);
      messages.push(toMail(m, conn.email, limits.maxChars));
    } catch (error) {
      // A message deleted between the history and the read is simply gone.
      if (error instanceof ProviderError && error.status === 404) continue;
      throw error;
    }
  }
  return { messages, cursor: next };
}
