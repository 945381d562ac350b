/**
 * Input handles and evidence (src/docs/notes/model.md): a model-backed run hands the model each input
 * under a short handle of its own (`m1` a mail, `f3` a feed item, `c12` a contact, …); records
 * cite handles, and Crew maps them to evidence items. A handle the run did not hand out, or a
 * record citing none, is a validation issue: evidence can only ever point at the run's real inputs.
 *
 * URLs in a record's text must be one of its evidence items' URLs or Crew's own (`{base}`): any
 * other URL is removed, so a prompt injection cannot plant a phishing or exfiltration link.
 */
import type { Evidence, EvidenceKind } from "../domain.ts";

/** The handle prefix of each kind of input. */
const PREFIX: Record<EvidenceKind, string> = {
  mail: "m",
  feed_item: "f",
  calendar_event: "e",
  slack_message: "k",
  event: "t",
  contact: "c",
  action: "a",
  insight: "i",
  handoff: "h",
  deal: "d",
  metric: "x",
  suggestion: "s",
};

export const EXCERPT_MAX = 300;

/** Crew's own page for a record it holds, as an absolute URL (what a person opens from "Based on"). */
export function crewUrl(base: string, kind: EvidenceKind, ref: string, title: string): string | undefined {
  const root = base.replace(/\/+$/, "");
  switch (kind) {
    case "action":
      return `${root}/actions#${ref}`;
    case "suggestion":
      return `${root}/suggestions#${ref}`;
    case "insight":
    case "handoff":
      return `${root}/feed#${ref}`;
    case "contact":
      return `${root}/contacts?q=${encodeURIComponent(title)}`;
    case "deal":
      return `${root}/profile`;
    default:
      return undefined;
  }
}

export interface Handles {
  /** Hands out the next handle of the input's kind; `text` is the input's whole text, for the write policy's checks. */
  add(evidence: Evidence, text?: string): string;
  get(handle: string): Evidence | undefined;
  /** Every handle handed out (the fingerprint of a run's inputs is built from these). */
  all(): [string, Evidence][];
  /** The whole text of each input by `kind ref` (src/agents/policy/write-policy.ts reads it). */
  texts(): Map<string, string>;
}

export function createHandles(): Handles {
  const byHandle = new Map<string, Evidence>();
  const counters = new Map<string, number>();
  const texts = new Map<string, string>();
  return {
    add(evidence, text) {
      const prefix = PREFIX[evidence.kind];
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      const handle = `${prefix}${n}`;
      const excerpt = evidence.excerpt?.replace(/\s+/g, " ").trim().slice(0, EXCERPT_MAX);
      const item: Evidence = { kind: evidence.kind, ref: evidence.ref, title: evidence.title.slice(0, 300) || evidence.ref };
      if (evidence.url) item.url = evidence.url;
      if (excerpt) item.excerpt = excerpt;
      if (evidence.trust) item.trust = evidence.trust;
      byHandle.set(handle, item);
      texts.set(`${item.kind} ${item.ref}`, `${evidence.title}\n${text ?? evidence.excerpt ?? ""}`);
      return handle;
    },
    get: (handle) => byHandle.get(handle.trim()),
    all: () => [...byHandle.entries()],
    texts: () => texts,
  };
}

/** What a record of the answer cites: its evidence handles and, for suggestions and actions, `sameAs`. */
export interface Cites {
  evidence?: string[];
  sameAs?: string;
}

/** The kinds of record an answer may hold, with the kind a `sameAs` of theirs must point at. */
const CITING: Record<string, EvidenceKind | null> = {
  suggestions: "suggestion",
  actions: "action",
  insights: null,
  handoffs: null,
  pipeline: null,
};

/** Checks every handle the answer cites; an issue per handle not handed out, per record citing none. */
export function citationIssues(answer: Record<string, unknown>, handles: Handles): string[] {
  const issues: string[] = [];
  for (const [field, sameKind] of Object.entries(CITING)) {
    const records = answer[field];
    if (!Array.isArray(records)) continue;
    records.forEach((record: Cites, i) => {
      const path = `${field}[${i}]`;
      if (!record.evidence?.length) issues.push(`${path}.evidence: Cite at least one handle of the data this rests on.`);
      record.evidence?.forEach((h, j) => {
        if (!handles.get(h)) issues.push(`${path}.evidence[${j}]: "${h}" is not a handle given in this run's data.`);
      });
      if (record.sameAs !== undefined) {
        const target = handles.get(record.sameAs);
        if (!target || target.kind !== sameKind)
          issues.push(`${path}.sameAs: "${record.sameAs}" is not the handle of an open ${sameKind ?? "record"} given in this run's data.`);
      }
    });
  }
  return issues;
}

/** The evidence items of cited handles, each once (call after citationIssues found none). */
export function evidenceOf(cited: string[] | undefined, handles: Handles): Evidence[] {
  const seen = new Set<string>();
  const out: Evidence[] = [];
  for (const h of cited ?? []) {
    const e = handles.get(h);
    if (!e || seen.has(`${e.kind} ${e.ref}`)) continue;
    seen.add(`${e.kind} ${e.ref}`);
    out.push(e);
  }
  return out;
}

const URL_IN_TEXT = /\b(?:https?:\/\/|www\.)[^\s<>"')\]]+/gi;

/** The text without URLs other than its evidence's and Crew's own; what was removed reads "[link removed]". */
export function withoutForeignUrls(text: string, evidence: Evidence[], base: string): string {
  const allowed = new Set(evidence.flatMap((e) => (e.url ? [e.url] : [])));
  const root = base.replace(/\/+$/, "");
  return text.replace(URL_IN_TEXT, (found) => {
    const url = found.replace(/[.,;:!?]+$/, "");
    const tail = found.slice(url.length);
    if (allowed.has(url) || url === root || url.startsWith(`${root}/`)) return found;
    return `[link removed]${tail}`;
  });
}

/** Merges evidence lists, each item once (by kind and ref), the first list's order first. */
export function mergeEvidence(a: readonly Evidence[], b: readonly Evidence[]): Evidence[] {
  const seen = new Set(a.map((e) => `${e.kind} ${e.ref}`));
  return [...a, ...b.filter((e) => !seen.has(`${e.kind} ${e.ref}`) && seen.add(`${e.kind} ${e.ref}`))];
}
