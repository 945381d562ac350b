/**
 * The one trust boundary for what runs write (src/docs/notes/prompt-injection.md): every completion
 * — a model-backed run's answer, an external runner's report — passes here before it is stored.
 * From each record's evidence it decides the record's provenance, whether it is held for review,
 * and which caps apply; it removes foreign links, keeps runs from setting a contact's relationship
 * or notes, and turns deal changes resting only on outside input into a suggestion. Violations
 * are repaired as stated and listed for the run's summary, never an error run.
 */
import type { Evidence, Priority } from "../../domain.ts";
import { withoutForeignUrls } from "../handles.ts";
import { attackSigns, holdsParticular, particulars } from "./attack-signs.ts";
import type { Completion, Deal, Vetted } from "./completion.ts";
import { externalOnly, provenanceOf, trustOf } from "./provenance.ts";
import { evidenceKey } from "./similarity.ts";

/** A mail the run read: its header addresses (From, To, Cc) and whether it is bulk. */
export interface ReadMail {
  addresses: string[];
  bulk: boolean;
}

export interface Reading {
  /** Crew's public base URL: its own links may stay in a record's text. */
  base: string;
  /** The whole text of each input, by evidence key (kind ref); evidence without one is read by its title and excerpt. */
  texts?: ReadonlyMap<string, string>;
  /** The mail the run read, by evidence key. Given (model-backed runs): contacts only come from these headers. */
  mail?: ReadonlyMap<string, ReadMail>;
  /** The text of the run's internal inputs: a particular found there is not "found only in outside input". */
  internalText?: string;
}

export interface PolicyReport {
  held: { kind: string; title: string; reason: string }[];
  capped: string[];
  contactsRefused: number;
  notesMoved: number;
  dealsSuggested: number;
}

const CAP: Record<Priority, Priority> = { critical: "high", high: "high", medium: "medium", low: "low" };

/**
 * Internal evidence that can vouch for a record's weight: a person's or colleague's words, or a
 * record people wrote. A contact, deal or metric cited beside a hostile mail does not lift the caps.
 */
const VOUCHING = new Set(["mail", "calendar_event", "slack_message", "action", "suggestion", "insight", "handoff"]);
const outsideOnly = (evidence: readonly Evidence[]) =>
  externalOnly(evidence) || (evidence.length > 0 && !evidence.some((e) => trustOf(e) === "internal" && VOUCHING.has(e.kind)));

const textOf = (reading: Reading, e: Evidence) => reading.texts?.get(evidenceKey(e)) ?? `${e.title}\n${e.excerpt ?? ""}`;

/** Why a record must wait for an owner, or undefined: signs of an attack in its outside evidence, or a particular only outside input holds. */
export function heldReason(text: string, evidence: readonly Evidence[], reading: Reading): string | undefined {
  const outside = evidence.filter((e) => trustOf(e) === "external");
  if (outside.length === 0) return undefined;
  for (const e of outside) {
    const signs = attackSigns(`${e.title}\n${textOf(reading, e)}`);
    if (signs.length > 0) return `${signs[0]} (${e.title.slice(0, 120)})`;
  }
  const headers = new Set(evidence.flatMap((e) => reading.mail?.get(evidenceKey(e))?.addresses ?? []));
  const links = new Set(evidence.flatMap((e) => (e.url ? [e.url.toLowerCase()] : [])));
  const inside = [reading.internalText ?? "", ...evidence.filter((e) => trustOf(e) === "internal").map((e) => textOf(reading, e))].join(
    "\n",
  );
  for (const p of particulars(text)) {
    if (p.kind === "address" && headers.has(p.value)) continue; // the correspondent's own address
    if (p.kind === "link" && links.has(p.value)) continue; // the cited item's own link
    if (holdsParticular(inside, p)) continue;
    if (outside.some((e) => holdsParticular(textOf(reading, e), p)))
      return `it repeats ${article(p.kind)} found only in outside input (${p.value})`;
  }
  return undefined;
}

const article = (kind: string) => `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;

/** Applies the policy; the completion it returns is what is stored, the report what the summary says. */
export function applyWritePolicy(input: Completion, reading: Reading): { completion: Completion; report: PolicyReport } {
  const report: PolicyReport = { held: [], capped: [], contactsRefused: 0, notesMoved: 0, dealsSuggested: 0 };
  const vet = <T extends { title: string; evidence?: Evidence[] }>(kind: string, record: T, body: string | undefined): T & Vetted => {
    const evidence = record.evidence ?? [];
    const reason = heldReason(`${record.title}\n${body ?? ""}`, evidence, reading);
    if (reason) report.held.push({ kind, title: record.title, reason });
    return { ...record, provenance: provenanceOf(evidence), ...(reason ? { heldReason: reason } : {}) };
  };
  const clean = (text: string, evidence: Evidence[] | undefined) => withoutForeignUrls(text, evidence ?? [], reading.base);
  const cap = (what: string, priority: Priority, evidence: Evidence[] | undefined): Priority => {
    if (!outsideOnly(evidence ?? []) || CAP[priority] === priority) return priority;
    report.capped.push(`${what} ${priority} → ${CAP[priority]}`);
    return CAP[priority];
  };

  const completion: Completion = { ...input };
  if (input.suggestions)
    completion.suggestions = input.suggestions.map((s) => {
      const vetted = vet("suggestion", s, s.detail);
      return {
        ...vetted,
        title: clean(s.title, s.evidence),
        detail: clean(s.detail, s.evidence),
        priority: cap("a suggestion", s.priority, s.evidence),
      };
    });
  if (input.actions)
    completion.actions = input.actions.map((a) => {
      const vetted = vet("action", a, a.description);
      const approval = a.type === "approval" && outsideOnly(a.evidence ?? []);
      if (approval) report.capped.push("an approval made a task");
      return {
        ...vetted,
        title: clean(a.title, a.evidence),
        ...(a.description !== undefined && { description: clean(a.description, a.evidence) }),
        priority: cap("an action", a.priority, a.evidence),
        type: approval ? "task" : a.type,
      };
    });
  if (input.insights)
    completion.insights = input.insights.map((i) => ({
      ...vet("insight", i, i.detail),
      title: clean(i.title, i.evidence),
      ...(i.detail !== undefined && { detail: clean(i.detail, i.evidence) }),
    }));
  if (input.newHandoffs)
    completion.newHandoffs = input.newHandoffs.map((h) => ({
      ...vet("handoff", h, h.context),
      title: clean(h.title, h.evidence),
      ...(h.context !== undefined && { context: clean(h.context, h.evidence) }),
      priority: cap("a handoff", h.priority, h.evidence),
    }));
  Object.assign(completion, contactsOf(input, reading, report));
  Object.assign(completion, dealsOf(completion, reading, report));
  return { completion, report };
}

/**
 * Contacts (src/docs/notes/prompt-injection.md#caps): with the run's mail known, only addresses in
 * the headers of a mail that is not bulk and shows no sign of an attack; the relationship is left
 * to people (a new contact is `contact`), and a run's notes go to the contact's history.
 */
function contactsOf(input: Completion, reading: Reading, report: PolicyReport): Pick<Completion, "contacts" | "contactNotes"> {
  if (!input.contacts?.length) return {};
  const allowed = new Map<string, string>();
  for (const [key, mail] of reading.mail ?? []) {
    if (mail.bulk || attackSigns(reading.texts?.get(key) ?? "").length > 0) continue;
    for (const address of mail.addresses) if (!allowed.has(address)) allowed.set(address, key);
  }
  const contacts: NonNullable<Completion["contacts"]> = [];
  const notes: NonNullable<Completion["contactNotes"]> = [...(input.contactNotes ?? [])];
  for (const c of input.contacts) {
    const email = c.email?.trim().toLowerCase();
    if (reading.mail && (!email || !allowed.has(email))) {
      report.contactsRefused++;
      continue;
    }
    const { relationship: _people, notes: note, ...fields } = c;
    contacts.push(fields);
    if (note?.trim()) {
      const key = email ? allowed.get(email) : undefined;
      const [kind = "mail", ...ref] = (key ?? "").split(" ");
      notes.push({
        ...(email ? { email } : {}),
        name: c.name,
        note: note.trim(),
        evidence: key ? [{ kind: kind as Evidence["kind"], ref: ref.join(" "), title: c.name, trust: "external" }] : [],
      });
      report.notesMoved++;
    }
  }
  return { contacts, contactNotes: notes };
}

/**
 * Deals change deal by deal (src/docs/notes/prompt-injection.md#caps): an empty pipeline changes
 * nothing; a change resting only on outside input becomes the suggestion "Update the pipeline: …".
 */
function dealsOf(completion: Completion, reading: Reading, report: PolicyReport): Pick<Completion, "profile" | "suggestions"> {
  const pipeline = completion.profile?.pipeline;
  if (!completion.profile || pipeline === undefined) return {};
  const { pipeline: _all, ...rest } = completion.profile;
  const kept: Deal[] = [];
  const suggested: NonNullable<Completion["suggestions"]> = [];
  for (const deal of pipeline) {
    if (!outsideOnly(deal.evidence ?? [])) {
      kept.push(deal);
      continue;
    }
    const title = `Update the pipeline: ${deal.company} → ${deal.stage}, $${Math.round(deal.value).toLocaleString("en-US")}`;
    const evidence = deal.evidence ?? [];
    const reason = heldReason(title, evidence, reading);
    suggested.push({
      title,
      detail: `Proposed from outside input only, so not applied: ${evidence.map((e) => e.title).join("; ")}.`,
      priority: "medium",
      evidence,
      provenance: "external",
      ...(reason ? { heldReason: reason } : {}),
    });
    report.dealsSuggested++;
  }
  const profile = Object.keys(rest).length > 0 || kept.length > 0 ? { ...rest, ...(kept.length ? { pipeline: kept } : {}) } : undefined;
  return {
    profile,
    ...(suggested.length ? { suggestions: [...(completion.suggestions ?? []), ...suggested] } : {}),
  };
}
