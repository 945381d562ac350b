/**
 * Each thing said once (src/docs/notes/model.md): a suggestion or action a run writes that is
 * `sameAs` an open one, or whose normalized title equals an open one's, is merged into it (the
 * agent joins `alsoRaisedBy`, the evidence is added) instead of stored again; a suggestion
 * matching one dismissed in the last 30 days is dropped.
 */
import type { Evidence } from "../domain.ts";
import { mergeEvidence } from "./handles.ts";

/** Dismissals keep a topic from being suggested again for this long. */
export const DISMISSAL_MEMORY_MS = 30 * 86_400_000;

const ARTICLES = /^(?:(?:the|a|an)\s+)+|(?:\s+(?:the|a|an))+$/g;

/** Lower-case, punctuation and runs of white space folded, leading and trailing articles dropped. */
export function normalizeTitle(title: string): string {
  return title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(ARTICLES, "")
    .trim();
}

export interface OpenRecord {
  id: string;
  agent: string;
  title: string;
  evidence: Evidence[];
  alsoRaisedBy: string[];
}

export interface Incoming {
  title: string;
  evidence?: Evidence[];
  /** The id of the open record the run says this is. */
  sameAs?: string;
}

export interface Merge {
  id: string;
  evidence: Evidence[];
  alsoRaisedBy: string[];
}

export interface Plan<T> {
  /** What is stored as new records. */
  inserts: T[];
  /** Open records that absorb a new one. */
  merges: Merge[];
  /** Dropped: they match a recent dismissal. */
  dropped: number;
}

/** Sorts what a run wrote into new records, merges into open ones, and drops (dismissed topics). */
export function planWrites<T extends Incoming>(
  agentId: string,
  incoming: readonly T[],
  open: readonly OpenRecord[],
  dismissedTitles: readonly string[] = [],
): Plan<T> {
  const byId = new Map(open.map((r) => [r.id, r]));
  const byTitle = new Map(open.map((r) => [normalizeTitle(r.title), r]));
  const dismissed = new Set(dismissedTitles.map(normalizeTitle));
  const merges = new Map<string, Merge>();
  const inserts: T[] = [];
  const insertedTitles = new Set<string>();
  let dropped = 0;
  for (const item of incoming) {
    const key = normalizeTitle(item.title);
    const target = (item.sameAs ? byId.get(item.sameAs) : undefined) ?? byTitle.get(key);
    if (target) {
      const merge = merges.get(target.id) ?? { id: target.id, evidence: target.evidence, alsoRaisedBy: target.alsoRaisedBy };
      merge.evidence = mergeEvidence(merge.evidence, item.evidence ?? []);
      if (target.agent !== agentId && !merge.alsoRaisedBy.includes(agentId)) merge.alsoRaisedBy = [...merge.alsoRaisedBy, agentId];
      merges.set(target.id, merge);
    } else if (dismissed.has(key)) dropped++;
    else if (!insertedTitles.has(key)) {
      insertedTitles.add(key);
      inserts.push(item);
    }
  }
  return { inserts, merges: [...merges.values()], dropped };
}
