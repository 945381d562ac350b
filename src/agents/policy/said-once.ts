/**
 * Each thing said once, by meaning (src/docs/notes/prompt-injection.md#said-once): a record a run
 * writes that is `sameAs` an open one, or says the same thing (policy/similarity.ts), is merged
 * into it (the agent joins `alsoRaisedBy`, the evidence is added) instead of stored again; one that
 * says what was dismissed in the last 30 days is dropped; two of one answer that say the same thing
 * are stored once.
 */
import type { Evidence } from "../../domain.ts";
import { mergeEvidence } from "../handles.ts";
import { type Comparable, comparable, sameMeaning } from "./similarity.ts";

/** Dismissals keep a topic from being said again for this long. */
export const DISMISSAL_MEMORY_MS = 30 * 86_400_000;

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
  /** Dropped: they say what was dismissed recently. */
  dropped: number;
  /** Folded into another record of the same answer. */
  folded: number;
}

/** Sorts what a run wrote into new records, merges into open ones, and drops (dismissed topics). */
export function planWrites<T extends Incoming>(
  agentId: string,
  incoming: readonly T[],
  open: readonly OpenRecord[],
  dismissed: readonly { title: string; evidence?: Evidence[] }[] = [],
): Plan<T> {
  const byId = new Map(open.map((r) => [r.id, r]));
  const openSeen: [OpenRecord, Comparable][] = open.map((r) => [r, comparable(r.title, r.evidence)]);
  const dismissedSeen = dismissed.map((d) => comparable(d.title, d.evidence ?? []));
  const merges = new Map<string, Merge>();
  const inserts: { item: T; seen: Comparable }[] = [];
  let dropped = 0;
  let folded = 0;
  for (const item of incoming) {
    const seen = comparable(item.title, item.evidence ?? []);
    const target = (item.sameAs ? byId.get(item.sameAs) : undefined) ?? openSeen.find(([, o]) => sameMeaning(seen, o))?.[0];
    if (target) {
      const merge = merges.get(target.id) ?? { id: target.id, evidence: target.evidence, alsoRaisedBy: target.alsoRaisedBy };
      merge.evidence = mergeEvidence(merge.evidence, item.evidence ?? []);
      if (target.agent !== agentId && !merge.alsoRaisedBy.includes(agentId)) merge.alsoRaisedBy = [...merge.alsoRaisedBy, agentId];
      merges.set(target.id, merge);
      continue;
    }
    if (dismissedSeen.some((d) => sameMeaning(seen, d))) {
      dropped++;
      continue;
    }
    const twin = inserts.find((i) => sameMeaning(seen, i.seen));
    if (twin) {
      // Two wordings in one answer: one record, with the evidence of both.
      twin.item = { ...twin.item, evidence: mergeEvidence(twin.item.evidence ?? [], item.evidence ?? []) };
      twin.seen = comparable(twin.item.title, twin.item.evidence ?? []);
      folded++;
      continue;
    }
    inserts.push({ item, seen });
  }
  return { inserts: inserts.map((i) => i.item), merges: [...merges.values()], dropped, folded };
}
