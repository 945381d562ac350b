/**
 * Outlook mail of a Microsoft 365 account as a mail source (src/docs/notes/connections.md),
 * read-only (`Mail.Read`), through Microsoft Graph v1.0 with plain fetch: delta query on the inbox
 * (`/me/mailFolders/inbox/messages/delta`). The first read asks for the last 7 days and follows
 * the pages to the `@odata.deltaLink`; each later read calls that link, which answers only what
 * changed — a mailbox with no change costs one request. The headers bulk mail is told by are read
 * per kept message (`internetMessageHeaders` is not part of a delta answer).
 */
import { DAY } from "../../lib/clock.ts";
import { type OpenConnection, ProviderError } from "../connections/access.ts";
import { type Address, bodyText, cleanMessageId, keptHeaders, type ProviderMail, subjectOf } from "../connections/mail-message.ts";

interface Recipient {
  emailAddress?: { name?: string; address?: string };
}

interface GraphMessage {
  id: string;
  "@removed"?: unknown;
  internetMessageId?: string;
  subject?: string;
  from?: Recipient;
  toRecipients?: Recipient[];
  ccRecipients?: Recipient[];
  receivedDateTime?: string;
  body?: { contentType?: string; content?: string };
  webLink?: string;
}

interface DeltaPage {
  value?: GraphMessage[];
  "@odata.nextLink"?: string;
  "@odata.deltaLink"?: string;
}

const SELECT = "subject,from,toRecipients,ccRecipients,receivedDateTime,internetMessageId,webLink,body";
/** Pages followed at once: more waits for the next read (the nextLink is the cursor then). */
const MAX_PAGES = 20;
const FIRST_READ_WINDOW = 7 * DAY;
/** Text bodies (Graph converts HTML), pages of 50. */
const PREFER = { Prefer: 'outlook.body-content-type="text", odata.maxpagesize=50' };

const address = (r: Recipient | undefined): Address | undefined => {
  const name = r?.emailAddress?.name?.trim();
  const email = r?.emailAddress?.address?.trim().toLowerCase();
  return name || email ? { ...(name ? { name } : {}), ...(email ? { email } : {}) } : undefined;
};
const addresses = (list: Recipient[] | undefined) => (list ?? []).flatMap((r) => address(r) ?? []).slice(0, 50);

export function toMail(m: GraphMessage, headers: { name: string; value: string }[], maxChars: number): ProviderMail {
  const from = address(m.from);
  const messageId = cleanMessageId(m.internetMessageId);
  const html = m.body?.contentType?.toLowerCase() === "html";
  return {
    id: m.id,
    ...(messageId ? { messageId } : {}),
    subject: subjectOf(m.subject),
    ...(from ? { from } : {}),
    to: addresses(m.toRecipients),
    cc: addresses(m.ccRecipients),
    headers: keptHeaders(headers),
    date: Date.parse(m.receivedDateTime ?? "") || 0,
    text: bodyText(html ? undefined : m.body?.content, html ? m.body?.content : undefined, maxChars),
    url: m.webLink ?? "https://outlook.office.com/mail/inbox",
  };
}

/** The first delta request: the inbox's last 7 days. */
function firstDelta(now: number): string {
  const since = new Date(now - FIRST_READ_WINDOW).toISOString().replace(/\.\d{3}Z$/, "Z");
  return `/me/mailFolders/inbox/messages/delta?${new URLSearchParams({ $select: SELECT, $filter: `receivedDateTime ge ${since}` })}`;
}

/** New messages since `cursor` (a delta or next link), and the link to read from next time. */
export async function outlookChanges(
  conn: OpenConnection,
  cursor: string | undefined,
  now: number,
  maxPages = MAX_PAGES,
): Promise<{ messages: GraphMessage[]; cursor: string }> {
  let link = cursor ?? firstDelta(now);
  const messages: GraphMessage[] = [];
  for (let page = 0; page < maxPages; page++) {
    let answer: DeltaPage;
    try {
      answer = await conn.call<DeltaPage>(link, { headers: PREFER });
    } catch (error) {
      // An expired delta token (410 Gone, or 400 with a sync-state error) starts over like a first read.
      if (cursor && error instanceof ProviderError && (error.status === 410 || error.status === 400) && link === cursor) {
        link = firstDelta(now);
        continue;
      }
      throw error;
    }
    for (const m of answer.value ?? []) if (!m["@removed"]) messages.push(m);
    const next = answer["@odata.nextLink"];
    const delta = answer["@odata.deltaLink"];
    if (delta) return { messages, cursor: delta };
    if (!next) return { messages, cursor: link };
    link = next;
  }
  return { messages, cursor: link };
}

export async function readOutlook(
  conn: OpenConnection,
  cursor: string | undefined,
  now: number,
  limits: { maxItems: number; maxChars: number },
): Promise<{ messages: ProviderMail[]; cursor: string }> {
  const changes = await outlookChanges(conn, cursor, now);
  const sorted = changes.messages.sort((a, b) => (Date.parse(a.receivedDateTime ?? "") || 0) - (Date.parse(b.receivedDateTime ?? "") || 0));
  const newest = limits.maxItems > 0 ? sorted.slice(-limits.maxItems) : [];
  const messages: ProviderMail[] = [];
  for (const m of newest) {
    const extra: { internetMessageHeaders?: { name: string; value: string }[] } = await conn
      .call<{ internetMessageHeaders?: { name: string; value: string }[] }>(
        `/me/messages/${encodeURIComponent(m.id)}?$select=internetMessageHeaders`,
      )
      .catch((error) => {
        if (error instanceof ProviderError && error.status === 404) return {};
        throw error;
      });
    messages.push(toMail(m, extra.internetMessageHeaders ?? [], limits.maxChars));
  }
  return { messages, cursor: changes.cursor };
}
