/**
 * What a model-backed run may answer (src/docs/notes/model.md): one valibot schema per agent, built from the
 * catalog's `writes`, with the same bounds as the run API's completion (src/docs/notes/model.md#what-a-model-backed-run-does), and its mapping
 * onto that completion. Plain schemas (no transforms), so they convert to the JSON Schema the
 * model is shown.
 */
import * as v from "valibot";
import type { Evidence } from "../domain.ts";
import { ACTION_TYPES, AGENT_IDS, INSIGHT_TYPES, PIPELINE_STAGES, PRIORITIES, RELATIONSHIPS } from "../domain.ts";
import type { SourceItem } from "../integrations/sources.ts";
import { evidenceOf, type Handles } from "./handles.ts";
import type { AgentJob } from "./jobs.ts";
import type { Completion } from "./run-api.ts";

const text = (max: number, what: string) =>
  v.pipe(
    v.string("Must be a string."),
    v.minLength(1, "Must not be empty."),
    v.maxLength(max, `Must be at most ${max} characters.`),
    v.description(what),
  );
const optionalText = (max: number, what: string) =>
  v.optional(v.pipe(v.string("Must be a string."), v.maxLength(max, `Must be at most ${max} characters.`), v.description(what)));
const list = <T extends v.GenericSchema>(item: T, max: number, what: string) =>
  v.optional(v.pipe(v.array(item, "Must be an array."), v.maxLength(max, `Must hold at most ${max} items.`), v.description(what)));
const oneOf = <T extends readonly [string, ...string[]]>(values: T) => v.picklist(values, `Must be one of ${values.join(", ")}.`);
const count = v.pipe(v.number("Must be a number."), v.minValue(0, "Must not be negative."));
const evidence = v.pipe(
  v.array(v.string("Must be a handle."), "Must be an array of handles."),
  v.minLength(1, "Cite at least one handle of the data this rests on."),
  v.maxLength(10, "Must hold at most 10 handles."),
  v.description('The handles of the data items this rests on (e.g. ["m1", "c3"]): only handles given in the data.'),
);
const sameAs = (what: string) =>
  v.optional(v.pipe(v.string(), v.description(`The handle of an open ${what} given in the data that this one repeats.`)));

const fields = (job: AgentJob) => {
  const others = AGENT_IDS.filter((id) => id !== job.id) as [string, ...string[]];
  return {
    suggestions: list(
      v.strictObject({
        title: text(200, "One line."),
        detail: optionalText(2000, "Why, and the source it comes from."),
        priority: v.optional(oneOf(PRIORITIES)),
        evidence,
        sameAs: sameAs("suggestion"),
      }),
      10,
      "Advice for the founder; replaces this agent's open suggestions.",
    ),
    actions: list(
      v.strictObject({
        title: text(200, "What a person should do."),
        description: optionalText(2000, "Details, and the source (e.g. the mail's subject)."),
        priority: oneOf(PRIORITIES),
        type: v.optional(oneOf(ACTION_TYPES)),
        contactId: v.optional(
          v.pipe(v.string(), v.description("The id of a contact given in the data (con_…), if the action is about one.")),
        ),
        evidence,
        sameAs: sameAs("action"),
      }),
      10,
      "Items for the action queue.",
    ),
    insights: list(
      v.strictObject({
        title: text(200, "One line."),
        detail: optionalText(2000, "Details and source."),
        type: v.optional(oneOf(INSIGHT_TYPES)),
        impact: v.optional(oneOf(["low", "medium", "high"] as const)),
        evidence,
      }),
      10,
      "Posts to the feed every agent reads.",
    ),
    handoffs: list(
      // Not critical: a critical handoff starts the other agent's run at once, and models must not chain runs.
      v.strictObject({
        to: oneOf(others),
        title: text(200, "The work asked for."),
        context: optionalText(2000, "What the other agent needs to know."),
        priority: v.optional(oneOf(["high", "medium", "low"] as const)),
        evidence,
      }),
      5,
      "Work for other agents.",
    ),
    contacts: list(
      v.strictObject({
        name: text(200, "The person's name."),
        email: v.optional(v.pipe(v.string(), v.email("Must be an email address."), v.maxLength(320))),
        company: optionalText(200, "Their company."),
        role: optionalText(200, "Their role."),
        relationship: v.optional(oneOf(RELATIONSHIPS)),
        notes: optionalText(2000, "What to remember."),
      }),
      20,
      "Contacts to create or update (matched by email).",
    ),
    metrics: v.optional(v.strictObject({ dau: count, wau: count, mrr: count })),
    profile: v.optional(
      v.strictObject({
        archetype: optionalText(200, "The company's archetype in a few words."),
        strengths: v.optional(v.pipe(v.array(text(500, "A strength.")), v.maxLength(10))),
        weaknesses: v.optional(v.pipe(v.array(text(500, "A weakness.")), v.maxLength(10))),
        patterns: v.optional(
          v.pipe(v.array(v.strictObject({ name: text(200, "Pattern name."), insight: text(2000, "What it means.") })), v.maxLength(10)),
        ),
      }),
    ),
    pipeline: list(
      v.strictObject({ company: text(200, "The company."), stage: oneOf(PIPELINE_STAGES), value: count, evidence }),
      20,
      "Deals that changed, one entry per deal, each citing what shows the change. Deals not listed stay as they are; a deal is never removed (close it with stage closed).",
    ),
  };
};

const schemas = new Map<string, ReturnType<typeof buildOutputSchema>>();

/** The schema of the object the agent answers: `summary` and the fields its job may write (built once per agent). */
export function outputSchema(job: AgentJob) {
  const known = schemas.get(job.id);
  if (known) return known;
  const built = buildOutputSchema(job);
  schemas.set(job.id, built);
  return built;
}

function buildOutputSchema(job: AgentJob) {
  const all = fields(job);
  const entries: Record<string, v.GenericSchema> = { summary: text(500, "One line for the dashboard: what this run found and did.") };
  for (const write of job.writes) entries[write] = all[write];
  return v.strictObject(entries);
}

const fullSchema = (job: AgentJob) => v.object({ summary: v.string(), ...fields(job) });
type Out = v.InferOutput<ReturnType<typeof fullSchema>>;

/**
 * The completion (src/docs/notes/agents-runtime.md) that stores what the model answered; claimed handoffs are reported
 * done. Cited handles become evidence (check them first with citationIssues). The write policy
 * (src/agents/policy/write-policy.ts) then vets it: links, caps, holds.
 */
export function toCompletion(answer: Record<string, unknown>, claimedHandoffIds: string[], handles: Handles): Completion {
  const a = answer as Partial<Out> & { summary: string };
  const cited = (r: { evidence?: string[] }) => evidenceOf(r.evidence, handles);
  const pipeline = a.pipeline?.map(({ evidence: handlesCited, ...deal }) => ({ ...deal, evidence: cited({ evidence: handlesCited }) }));
  const profile = a.profile || pipeline?.length ? { ...(a.profile ?? {}), ...(pipeline?.length ? { pipeline } : {}) } : undefined;
  const same = (handle: string | undefined) => (handle ? { sameAs: handles.get(handle)?.ref } : {});
  return {
    status: "ok",
    summary: a.summary,
    ...(a.suggestions && {
      suggestions: a.suggestions.map((s) => {
        const ev = cited(s);
        return {
          title: s.title,
          detail: s.detail ?? "",
          priority: s.priority ?? "medium",
          evidence: ev,
          ...same(s.sameAs),
        };
      }),
    }),
    ...(a.actions && {
      actions: a.actions.map((x) => {
        const ev = cited(x);
        return {
          title: x.title,
          ...(x.description && { description: x.description }),
          priority: x.priority,
          type: x.type ?? "task",
          ...(x.contactId && { contactId: x.contactId }),
          evidence: ev,
          ...same(x.sameAs),
        };
      }),
    }),
    ...(a.insights && {
      insights: a.insights.map((i) => {
        const ev = cited(i);
        return {
          title: i.title,
          ...(i.detail && { detail: i.detail }),
          type: i.type ?? "insight",
          impact: i.impact ?? "medium",
          evidence: ev,
        };
      }),
    }),
    ...(a.handoffs && {
      newHandoffs: a.handoffs.map((h) => {
        const ev = cited(h);
        return {
          to: h.to,
          title: h.title,
          ...(h.context && { context: h.context }),
          priority: h.priority ?? "medium",
          evidence: ev,
        };
      }),
    }),
    ...(a.contacts && { contacts: a.contacts }),
    ...(a.metrics && { metrics: a.metrics }),
    ...(profile && { profile }),
    handoffs: claimedHandoffIds.map((id) => ({ id, status: "done" as const })),
  };
}

/**
 * The inbox agent's correspondents become contacts whatever the model answered (src/docs/notes/model.md: inbox
 * writes "contacts upserted from correspondents"): one per sender address of the mail it read,
 * unless the model already named that address (its entry, with company or notes, wins).
 */
export function withCorrespondents(completion: Completion, mail: SourceItem[]): Completion {
  const named = new Set((completion.contacts ?? []).flatMap((c) => (c.email ? [c.email.trim().toLowerCase()] : [])));
  const added: NonNullable<Completion["contacts"]> = [];
  for (const item of mail) {
    const email = item.from?.email?.trim().toLowerCase();
    if (!email || named.has(email)) continue;
    named.add(email);
    added.push({ name: item.from?.name?.trim() || email.split("@")[0] || email, email });
  }
  return added.length ? { ...completion, contacts: [...(completion.contacts ?? []), ...added] } : completion;
}
