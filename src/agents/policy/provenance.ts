/**
 * Provenance (src/docs/notes/prompt-injection.md#provenance): an input is `internal` when people of
 * the organization wrote it or it is the organization's own data; mail and invitations are
 * internal when their sender or organizer is a member or belongs to an internal domain
 * (CREW_INTERNAL_DOMAINS, else the domains of the members' emails). Everything else from outside is
 * `external`, and a record a run wrote from external input is external too (taint propagates).
 */
import type { Evidence, Provenance, Trust } from "../../domain.ts";

/** Public mail providers: a member's gmail.com address makes that member internal, never every gmail.com sender. */
const SHARED_MAIL_DOMAINS = new Set([
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "yahoo.com",
  "icloud.com",
  "me.com",
  "proton.me",
  "protonmail.com",
  "aol.com",
  "gmx.com",
  "gmx.de",
  "web.de",
  "mail.com",
  "fastmail.com",
  "zoho.com",
  "yandex.ru",
  "hey.com",
]);

export interface InsideWorld {
  /** The members' addresses, lower-case. */
  members: Set<string>;
  /** Domains whose every address is internal, lower-case. */
  domains: Set<string>;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/**
 * Who is inside: the members, and the configured domains or, when none are configured, the
 * domains of the members' own addresses (shared mail providers left out).
 */
export function insideWorld(memberEmails: readonly string[], configuredDomains: readonly string[] | null): InsideWorld {
  const members = new Set(memberEmails.map((e) => e.trim().toLowerCase()).filter((e) => e.includes("@")));
  const domains = configuredDomains
    ? new Set(configuredDomains.map((d) => d.trim().toLowerCase().replace(/^@/, "")).filter(Boolean))
    : new Set([...members].map(domainOf).filter((d) => !SHARED_MAIL_DOMAINS.has(d)));
  return { members, domains };
}

/** An address's trust: internal for a member or an internal domain (exactly, not a look-alike subdomain). */
export function addressTrust(email: string | undefined | null, inside: InsideWorld): Trust {
  const address = email?.trim().toLowerCase();
  if (!address?.includes("@")) return "external";
  if (inside.members.has(address)) return "internal";
  return inside.domains.has(domainOf(address)) ? "internal" : "external";
}

/** Evidence stored before provenance existed carries no trust: it was written by people or from data then. */
export const trustOf = (e: Pick<Evidence, "trust">): Trust => e.trust ?? "internal";

/** A record's provenance: internal only when every evidence item is. */
export function provenanceOf(evidence: readonly Pick<Evidence, "trust">[]): Provenance {
  return evidence.some((e) => trustOf(e) === "external") ? "external" : "internal";
}

/** Whether a record rests only on outside input (the caps apply): it has evidence and none of it is internal. */
export const externalOnly = (evidence: readonly Pick<Evidence, "trust">[]) =>
  evidence.length > 0 && evidence.every((e) => trustOf(e) === "external");
