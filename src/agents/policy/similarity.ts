/**
 * Said once, by meaning (src/docs/notes/prompt-injection.md#said-once): two records are the same
 * when, after lower-casing and dropping punctuation and stop words, their title word sets overlap
 * ≥ 0.6 (Jaccard) and they share an evidence item, or overlap ≥ 0.8 alone, or one title contains
 * the other. Re-wordings of one finding then merge instead of piling up.
 */
import type { Evidence } from "../../domain.ts";

/** English function words that carry no topic ("Follow up with the Acme team" ~ "Acme team follow-up"). */
const STOP_WORDS = new Set(
  (
    "a an the and or but if then so of to in on at by for with from into onto about over under as is are was were be been being " +
    "this that these those it its it's their there here our your my we you they he she them his her i me us " +
    "do does did done doing have has had having can could should would will shall may might must " +
    "not no yes up out off re fw fwd please now today new some any all more most very just also s t d ll ve"
  ).split(" "),
);

/** A plural's singular, roughly ("seats" → "seat", "replies" → "reply"), so number does not split a topic. */
const singular = (w: string) =>
  w.length > 4 && w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w;

/** A title as the words it is about: lower-case, NFKC, punctuation dropped, stop words dropped, plurals folded, in order. */
export function titleWords(title: string): string[] {
  return title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .split(/\s+/)
    .filter((w) => w && !STOP_WORDS.has(w))
    .map(singular);
}

/** A title prepared for comparison: its words, as a set and as one spaced string (for containment). */
export interface Comparable {
  words: Set<string>;
  phrase: string;
  evidence: Set<string>;
}

export const evidenceKey = (e: Pick<Evidence, "kind" | "ref">) => `${e.kind} ${e.ref}`;

export function comparable(title: string, evidence: readonly Evidence[] = []): Comparable {
  const words = titleWords(title);
  return { words: new Set(words), phrase: ` ${words.join(" ")} `, evidence: new Set(evidence.map(evidenceKey)) };
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

const sharesEvidence = (a: Comparable, b: Comparable) => {
  for (const key of a.evidence) if (b.evidence.has(key)) return true;
  return false;
};

/** Whether two records say the same thing (the rule above). Titles with no topic words never match by containment. */
export function sameMeaning(a: Comparable, b: Comparable): boolean {
  if (a.words.size === 0 || b.words.size === 0) return a.phrase === b.phrase && a.words.size > 0;
  const overlap = jaccard(a.words, b.words);
  if (overlap >= 0.8) return true;
  if (overlap >= 0.6 && sharesEvidence(a, b)) return true;
  return a.phrase.includes(b.phrase) || b.phrase.includes(a.phrase);
}
