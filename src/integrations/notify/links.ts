/**
 * Links Crew puts in a mail (src/docs/notes/delivery.md): `{base}/a/{token}` for one-click actions (≥ 128 random
 * bits — 256 here —, one user, one action, one verb, single use, 72 hours) and
 * `{base}/unsubscribe/{token}` for the RFC 8058 one-click unsubscribe. Only the SHA-256 of a token
 * is stored; the mail carries the token itself.
 */
import type { InStatement } from "@libsql/client";
import { principalFor } from "../../auth/access.ts";
import type { Principal } from "../../domain.ts";
import { DAY, HOUR } from "../../lib/clock.ts";
import { randomSecret, sha256Hex } from "../../lib/random.ts";
import { getUserById } from "../../store/auth/users.ts";
import type { Db } from "../../store/db.ts";
import { claimMailLink, findMailLink, insertMailLinkStatement, type LinkState, type MailLink } from "../../store/delivery/notify.ts";

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

/** A link from a mail as its holder presents it: what it allows, whether it still works, and for whom. */
export interface HeldLink {
  link: MailLink & { state: LinkState; orgId: string };
  /** The link's user, whom the page invokes operations for (the token is the credential, as a session cookie is). */
  principal: Principal;
}

/** Who a token from a mail acts for; null for an unknown token, or one whose user is deactivated or gone. */
export async function heldLink(db: Db, token: string, now: number): Promise<HeldLink | null> {
  const link = await findMailLink(db, linkTokenHash(token), now);
  if (!link) return null;
  const user = await getUserById(db, link.userId);
  if (!user || user.deactivatedAt !== null) return null;
  return { link, principal: principalFor(user.id, user, { type: "session", id: "mail-link" }) };
}

/** Uses a single-use link: atomic, so two presses (or two tabs) act once. False when it was used or expired meanwhile. */
export const useMailLink = (db: Db, token: string, now: number): Promise<boolean> => claimMailLink(db, linkTokenHash(token), now);
