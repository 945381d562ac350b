/**
 * One message of a connected mailbox, the same shape whichever provider it came from, and the
 * helpers both providers' readers share: addresses, the headers that tell bulk mail apart, the
 * body as plain text (src/docs/notes/connections.md).
 */
import { addressParser } from "postal-mime";
import { htmlToText, tidy, truncate } from "../feeds/plain-text.ts";

export interface Address {
  name?: string;
  email?: string;
}

export interface ProviderMail {
  /** The provider's id of the message (Gmail's message id, Graph's item id). */
  id: string;
  /** The Message-ID header without angle brackets: the evidence `ref`. */
  messageId?: string;
  subject: string;
  from?: Address;
  to: Address[];
  cc: Address[];
  /** The headers bulk and automatic mail is told by (lower-case names): list-unsubscribe, precedence, auto-submitted, list-id. */
  headers: Record<string, string>;
  /** Epoch ms. */
  date: number;
  text: string;
  /** Opens the message in Gmail or Outlook. */
  url: string;
}

/** Headers kept of a message: what bulk-sender rules read (RFC 2369, RFC 3834, RFC 2919). */
export const KEPT_HEADERS = ["list-unsubscribe", "list-id", "precedence", "auto-submitted"];

export function keptHeaders(all: { name: string; value: string }[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const h of all) {
    const name = h.name.toLowerCase();
    if (KEPT_HEADERS.includes(name) && kept[name] === undefined) kept[name] = h.value.slice(0, 500);
  }
  return kept;
}

/** Addresses of one header value (`"Ada" <ada@example.org>, bob@example.com`). */
export function addressesOf(value: string | undefined): Address[] {
  if (!value) return [];
  return addressParser(value)
    .flatMap((a) => ("group" in a && a.group ? a.group : [a]))
    .map((a) => ({ ...(a.name ? { name: a.name } : {}), ...("address" in a && a.address ? { email: a.address.toLowerCase() } : {}) }))
    .filter((a) => a.email || a.name)
    .slice(0, 50);
}

export const cleanMessageId = (value: string | undefined) => value?.trim().replace(/^<|>$/g, "") || undefined;

export function bodyText(text: string | undefined, html: string | undefined, maxChars: number): string {
  return truncate(text ? tidy(text) : html ? htmlToText(html) : "", maxChars);
}

export const subjectOf = (subject: string | undefined) => truncate(tidy(subject ?? "") || "(no subject)", 300);
