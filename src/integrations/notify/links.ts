/**
 * Links Crew puts in a mail (src/docs/notes/delivery.md): `{base}/a/{token}` for one-click actions (≥ 128 random
 * bits — 256 here —, one user, one action, one verb, single use, 72 hours) and
 * `{base}/unsubscribe/{token}` for the RFC 8058 one-click unsubscribe. Only the SHA-256 of a token
 * is stored; the mail carries the token itself.
 */
import type { InStatement } from "@libsql/client";
import { DAY, HOUR } from "../../lib/clock.ts";
import { randomSecret, sha256Hex } from "../../lib/random.ts";
import { insertMailLinkStatement, type MailLink } from "../../store/delivery/notify.ts";

export const ACTION_LINK_MS = 72 * HOUR;
/** An unsubscribe link keeps working for as long as people keep old mails around, within reason. */
export const UNSUBSCRIBE_LINK_MS = 90 * DAY;

export interface NewLink {
  url: string;
  statement: InStatement;
}

export function newMailLink(baseUrl: string, link: MailLink, now: number): NewLink {
  const token = randomSecret(32);
  const path = link.purpose === "action" ? "a" : "unsubscribe";
  const lifetime = link.purpose === "action" ? ACTION_LINK_MS : UNSUBSCRIBE_LINK_MS;
  return { url: `${baseUrl}/${path}/${token}`, statement: insertMailLinkStatement(sha256Hex(token), link, now, now + lifetime) };
}

/** The stored form of a token from a URL (anything that is not a token of ours hashes to nothing stored). */
export const linkTokenHash = (token: string) => sha256Hex(token);
