/**
 * A completion through the write policy (src/docs/notes/prompt-injection.md), with what it is
 * compared against read from the store: the trust of cited Crew records (an external runner's
 * evidence; a model-backed run's handles carry theirs), the caps and holds (write-policy.ts), and
 * said once by meaning (said-once.ts) against open and queued records and the last 30 days'
 * dismissals. What it returns is what completionStatements stores, and what the summary says.
 */
import type { Evidence } from "../../domain.ts";
import { actionsClosedSince, listHeldActions, listOpenActions } from "../../store/actions/actions.ts";
import { dismissedSince, listSuggestions } from "../../store/actions/suggestions.ts";
import type { Db } from "../../store/db.ts";
import { queuedHandoffsTo } from "../../store/feed/handoffs.ts";
import { insightsToCompare } from "../../store/feed/insights.ts";
import { isRecordKind, type RecordKind, recordTrust } from "../../store/orgs/record-refs.ts";
import type { Completion } from "./completion.ts";
import { DISMISSAL_MEMORY_MS, type Plan, planWrites } from "./said-once.ts";
import { applyWritePolicy, type PolicyReport, type Reading } from "./write-policy.ts";

/** At most this many open records of a kind are compared with a run's new ones. */
const COMPARED = 500;

type Suggestion = NonNullable<Completion["suggestions"]>[number];
type Action = NonNullable<Completion["actions"]>[number];
type Insight = NonNullable<Completion["insights"]>[number];
type Handoff = NonNullable<Completion["newHandoffs"]>[number];

export interface VettedCompletion {
  completion: Completion;
  suggestions: Plan<Suggestion>;
  actions: Plan<Action>;
  insights: Plan<Insight>;
  handoffs: Plan<Handoff>;
  report: PolicyReport;
}

/** Crew decides the trust of evidence citing its own records; a runner's word for an outside input is kept (default external). */
async function withTrust(db: Db, orgId: string, input: Completion): Promise<Completion> {
  const lists = [input.suggestions, input.actions, input.insights, input.newHandoffs, input.profile?.pipeline];
  const byKind = new Map<RecordKind, Set<string>>();
  for (const list of lists)
    for (const r of list ?? [])
      for (const e of r.evidence ?? []) if (isRecordKind(e.kind)) byKind.set(e.kind, (byKind.get(e.kind) ?? new Set()).add(e.ref));
  const known = new Map(
    await Promise.all([...byKind].map(async ([kind, refs]) => [kind, await recordTrust(db, orgId, kind, [...refs])] as const)),
  );
  const trusted = (e: Evidence): Evidence => {
    if (isRecordKind(e.kind)) return { ...e, trust: known.get(e.kind)?.get(e.ref) ?? "external" };
    if (e.kind === "deal" || e.kind === "metric") return { ...e, trust: e.trust ?? "internal" };
    return { ...e, trust: e.trust ?? "external" };
  };
  const mapped = <T extends { evidence?: Evidence[] }>(list: T[] | undefined) =>
    list?.map((r) => (r.evidence ? { ...r, evidence: r.evidence.map(trusted) } : r));
  return {
    ...input,
    ...(input.suggestions && { suggestions: mapped(input.suggestions) }),
    ...(input.actions && { actions: mapped(input.actions) }),
    ...(input.insights && { insights: mapped(input.insights) }),
    ...(input.newHandoffs && { newHandoffs: mapped(input.newHandoffs) }),
    ...(input.profile?.pipeline && { profile: { ...input.profile, pipeline: mapped(input.profile.pipeline) } }),
  };
}

const none = <T>(): Plan<T> => ({ inserts: [], merges: [], dropped: 0, folded: 0 });

export async function vetCompletion(
  db: Db,
  orgId: string,
  agentId: string,
  raw: Completion,
  reading: Reading,
  now: number,
  /** True for a model-backed run: its handles already carry trust. */
  trusted = false,
): Promise<VettedCompletion> {
  const { completion, report } = applyWritePolicy(trusted ? raw : await withTrust(db, orgId, raw), reading);
  const since = now - DISMISSAL_MEMORY_MS;
  const has = (list: unknown[] | undefined) => Boolean(list?.length);
  const [openSuggestions, dismissed, openActions, held, closed, insights] = await Promise.all([
    has(completion.suggestions) ? listSuggestions(db, orgId, { limit: COMPARED, held: "any" }) : [],
    has(completion.suggestions) ? dismissedSince(db, orgId, since, COMPARED) : [],
    has(completion.actions) ? listOpenActions(db, orgId, COMPARED) : [],
    has(completion.actions) ? listHeldActions(db, orgId, COMPARED) : [],
    has(completion.actions) ? actionsClosedSince(db, orgId, since, COMPARED) : [],
    has(completion.insights) ? insightsToCompare(db, orgId, since, COMPARED) : [],
  ]);
  const asOpen = (r: { id: string; title: string; evidence: Evidence[] }, agent: string, alsoRaisedBy: string[] = []) => ({
    id: r.id,
    agent,
    title: r.title,
    evidence: r.evidence,
    alsoRaisedBy,
  });
  const handoffs = none<Handoff>();
  // Handoffs say the same thing only to the same agent: each destination's queue is compared on its own.
  const byTo = new Map<string, Handoff[]>();
  for (const h of completion.newHandoffs ?? []) byTo.set(h.to, [...(byTo.get(h.to) ?? []), h]);
  for (const [to, list] of byTo) {
    const queued = await queuedHandoffsTo(db, orgId, to, COMPARED);
    const plan = planWrites(
      agentId,
      list,
      queued.map((h) => asOpen(h, h.from)),
    );
    handoffs.inserts.push(...plan.inserts);
    handoffs.merges.push(...plan.merges);
    handoffs.folded += plan.folded;
  }
  return {
    completion,
    report,
    suggestions: completion.suggestions
      ? planWrites(
          agentId,
          completion.suggestions,
          openSuggestions.map((s) => asOpen(s, s.agent, s.alsoRaisedBy)),
          dismissed,
        )
      : none(),
    actions: completion.actions
      ? planWrites(
          agentId,
          completion.actions,
          [...openActions, ...held].map((a) => asOpen(a, a.createdBy)),
          closed.filter((a) => a.status === "dismissed"),
        )
      : none(),
    insights: completion.insights
      ? planWrites(
          agentId,
          completion.insights,
          insights.map((i) => asOpen(i, i.agent)),
        )
      : none(),
    handoffs,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A list said in words: "a, b and c". */
const inWords = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`);

/**
 * The run's summary, composed by Crew from what was stored (src/docs/notes/prompt-injection.md#small-models):
 * counts, what was held and why, what was capped, merged and dropped.
 */
export function storedSummary(v: VettedCompletion, contacts: number): string {
  const stored = [
    [v.actions.inserts.length, "action"],
    [v.suggestions.inserts.length, "suggestion"],
    [v.insights.inserts.length, "insight"],
    [v.handoffs.inserts.length, "handoff"],
    [contacts, "contact"],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, word]) => plural(n as number, word as string));
  const lines = [stored.length ? `Stored ${inWords(stored)}.` : "Stored nothing new."];
  lines.push(...policyLines(v));
  return lines.join(" ").slice(0, 2000);
}

/** What the policy and the merge did, in sentences (also appended to an external runner's own summary). */
export function policyLines(v: VettedCompletion): string[] {
  const lines: string[] = [];
  const { report } = v;
  if (report.held.length) {
    const reasons = [...new Set(report.held.map((h) => h.reason.replace(/ \(.*$/, "")))];
    lines.push(`Held for review: ${plural(report.held.length, "record")} (${reasons.join("; ")}).`);
  }
  const counted = new Map<string, number>();
  for (const c of report.capped) counted.set(c, (counted.get(c) ?? 0) + 1);
  const capped = [...counted].map(([c, n]) => (n > 1 ? `${c} (${n} times)` : c));
  if (report.contactsRefused) capped.push(`${plural(report.contactsRefused, "contact")} not from a mail's headers left out`);
  if (report.notesMoved) capped.push(`${plural(report.notesMoved, "contact note")} kept in the contact's history`);
  if (report.dealsSuggested) capped.push(`${plural(report.dealsSuggested, "deal change")} from outside input made a suggestion`);
  if (capped.length) lines.push(`Capped: ${capped.join("; ")}.`);
  const merged = [v.actions, v.suggestions, v.insights, v.handoffs].reduce((n, p) => n + p.merges.length, 0);
  const dropped = v.actions.dropped + v.suggestions.dropped;
  const folded = [v.actions, v.suggestions, v.insights, v.handoffs].reduce((n, p) => n + p.folded, 0);
  const said = [
    merged ? `${merged} already open, merged` : "",
    dropped ? `${dropped} dismissed recently, dropped` : "",
    folded ? `${folded} said twice in the answer, stored once` : "",
  ].filter(Boolean);
  if (said.length) lines.push(`Said once: ${said.join("; ")}.`);
  return lines;
}
