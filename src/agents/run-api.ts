/**
 * The agent-run API's behaviour (src/docs/notes/agents-runtime.md), behind the operations of src/operations/agent-runs.ts:
 * start a run (claiming the agent's queued handoffs, handing over the insights posted since its
 * previous run) and complete it, storing everything it reports in one transaction.
 *
 * Suggestions: a completion that sends `suggestions` replaces the agent's open suggestions with
 * them (an agent that runs hourly restates its current advice; it does not pile up); one that
 * leaves the field out keeps them.
 *
 * Alerts: the alerts a completion reports are open alerts of the organization. A successful
 * completion first resolves every open alert the same agent raised through earlier runs (the
 * problem is gone: the agent ran); a failed one that reports alerts replaces the agent's open
 * alerts of those services (no pile-up of the same alert every hour). Alerts raised elsewhere (the
 * calendar integration) are resolved there.
 */
import type { InStatement } from "@libsql/client";
import { type Evidence, isAgentId } from "../domain.ts";
import { ApiError, type FieldIssue } from "../errors.ts";
import type { Clock } from "../lib/clock.ts";
import type { DomainEvent, Events } from "../lib/events.ts";
import { newId } from "../lib/random.ts";
import {
  type ActionInsert,
  actionCreated,
  actionEvidenceStatement,
  actionInsertStatement,
  newActionRow,
} from "../store/actions/actions.ts";
import { suggestionInsertStatement, suggestionMergeStatement, supersedeSuggestionsStatement } from "../store/actions/suggestions.ts";
import { commit } from "../store/commit.ts";
import { contactIssues, contactNoteStatement, upsertContactStatement } from "../store/contacts/contacts.ts";
import type { Db } from "../store/db.ts";
import { handoffEvidenceStatement, handoffInsertStatement } from "../store/feed/handoffs.ts";
import { type InsightRecord, insightEvidenceStatement, insightInsertStatement, listInsightsSince } from "../store/feed/insights.ts";
import { alertInsertStatement, alertSourceInsertStatement, resolveAgentAlertsStatement } from "../store/integrations/alerts.ts";
import { existingRecordIds, isRecordKind, type RecordKind } from "../store/orgs/record-refs.ts";
import { latestProfile, profileInsertStatement } from "../store/reports/reports.ts";
import {
  type ClaimedHandoff,
  claimedHandoffIds,
  completeRunStatement,
  getRun,
  handoffResultStatement,
  isAlreadyCompleted,
  latestRunStart,
  requeueUnreportedStatement,
  startRun,
} from "../store/runs/runs.ts";
import { mergeProfile, type ProfileBody } from "./compose-profile.ts";
import type { Completion } from "./policy/completion.ts";
import { policyLines, storedSummary, vetCompletion } from "./policy/vet-completion.ts";
import type { Reading } from "./policy/write-policy.ts";

/** At most this many insights are handed to one run (high impact first, then newest). */
export const MAX_CONTEXT_INSIGHTS = 200;

export function assertAgent(agentId: string): void {
  if (!isAgentId(agentId)) {
    throw new ApiError(404, "not_found", `Agent ${agentId} was not found; the agents are listed at GET /api/mcp/agents.`);
  }
}

export interface StartedRun {
  runId: string;
  handoffs: ClaimedHandoff[];
  insights: (InsightRecord & { evidence: Evidence[] })[];
}

export async function startAgentRun(db: Db, clock: Clock, orgId: string, agentId: string): Promise<StartedRun> {
  assertAgent(agentId);
  const now = clock.now();
  // The previous run's start bounds the insights handed over: those posted since (all, on a first run).
  const previous = await latestRunStart(db, orgId, agentId);
  const runId = newId("run", now);
  const handoffs = await startRun(db, { id: runId, orgId, agentId, startedAt: now });
  const insights = await listInsightsSince(db, orgId, previous ?? Number.MIN_SAFE_INTEGER, MAX_CONTEXT_INSIGHTS);
  return { runId, handoffs, insights };
}

export type { Completion } from "./policy/completion.ts";

const conflict = (runId: string) =>
  new ApiError(409, "run_already_completed", `Run ${runId} is no longer running: it was completed already, or closed after an hour.`);

/** Checks what the body refers to (contacts, handoffs) before anything is written: a bad item refuses the completion and nothing is stored. */
async function referenceIssues(db: Db, orgId: string, runId: string, input: Completion): Promise<FieldIssue[]> {
  const [issues, claimed] = await Promise.all([
    contactIssues(db, orgId, input.actions ?? [], (i) => `actions[${i}].contactId`),
    claimedHandoffIds(db, runId),
  ]);
  issues.push(...(await evidenceIssues(db, orgId, input)));
  const seen = new Set<string>();
  (input.handoffs ?? []).forEach((h, i) => {
    if (!claimed.has(h.id))
      issues.push({ path: `handoffs[${i}].id`, message: "Not a handoff this run claimed (or it was reported already)." });
    else if (seen.has(h.id)) issues.push({ path: `handoffs[${i}].id`, message: "Reported twice." });
    seen.add(h.id);
  });
  return issues;
}

/**
 * Evidence a runner sends that cites a Crew record (a contact, action, insight, handoff or
 * suggestion) must cite one of the organization: an issue per ref that names none, at its path.
 */
async function evidenceIssues(db: Db, orgId: string, input: Completion): Promise<FieldIssue[]> {
  const cited = (["suggestions", "actions", "insights", "newHandoffs"] as const).flatMap((field) =>
    (input[field] ?? []).flatMap((record, i) =>
      (record.evidence ?? []).map((e, j) => ({ path: `${field}[${i}].evidence[${j}].ref`, kind: e.kind, ref: e.ref })),
    ),
  );
  const byKind = new Map<RecordKind, string[]>();
  for (const c of cited) if (isRecordKind(c.kind)) byKind.set(c.kind, [...(byKind.get(c.kind) ?? []), c.ref]);
  const known = new Map(
    await Promise.all(
      [...byKind].map(async ([kind, refs]) => [kind, await existingRecordIds(db, orgId, kind, [...new Set(refs)])] as const),
    ),
  );
  return cited.flatMap((c) =>
    isRecordKind(c.kind) && !known.get(c.kind)?.has(c.ref)
      ? [{ path: c.path, message: `No ${c.kind} with this id in the organization.` }]
      : [],
  );
}

/** How a completion is vetted and told (src/docs/notes/prompt-injection.md). */
export interface CompletionOptions {
  /** What the run read (a model-backed run); without it, evidence is read by its titles and excerpts. */
  reading?: Omit<Reading, "base">;
  /** A model-backed run: its evidence carries trust already, and Crew composes its summary from what was stored. */
  modelBacked?: boolean;
}

/** What a completion stores, as statements; the run's own update comes first (it guards against a second completion). */
async function completionStatements(
  db: Db,
  orgId: string,
  agentId: string,
  runId: string,
  raw: Completion,
  now: number,
  base: string,
  options: CompletionOptions,
): Promise<{ statements: InStatement[]; actions: ActionInsert[]; later: DomainEvent[]; summary: string }> {
  // One trust boundary (src/docs/notes/prompt-injection.md): provenance, caps, held for review, said once by meaning.
  const vetted = await vetCompletion(db, orgId, agentId, raw, { ...options.reading, base }, now, options.modelBacked);
  const input = vetted.completion;
  const hasData =
    input.status === "ok" &&
    (input.output !== undefined ||
      Boolean(input.suggestions?.length || input.actions?.length || input.insights?.length || input.contacts?.length) ||
      input.metrics !== undefined ||
      input.profile !== undefined);
  const summary =
    input.status !== "ok"
      ? raw.summary
      : options.modelBacked
        ? storedSummary(vetted, input.contacts?.length ?? 0)
        : [raw.summary, ...policyLines(vetted)].join(" ").slice(0, 2000);
  // The model's own summary line is kept apart from the one Crew composed (src/docs/notes/prompt-injection.md#small-models).
  const output = options.modelBacked && input.status === "ok" ? { ...(input.output as object), modelSummary: raw.summary } : input.output;
  const statements: InStatement[] = [
    completeRunStatement({
      runId,
      status: input.status,
      summary,
      error: input.error ?? null,
      output,
      metrics: input.metrics ?? null,
      hasData,
      finishedAt: now,
    }),
  ];
  // The suggestions a run reports are the agent's current set: they replace its open ones (an empty list clears them),
  // except the ones it restated. Suggestions the policy made (deal changes) do not replace anything.
  if (raw.suggestions) {
    const kept = vetted.suggestions.merges.map((m) => m.id);
    statements.push(supersedeSuggestionsStatement(orgId, agentId, kept, now));
  }
  for (const m of vetted.suggestions.merges) statements.push(suggestionMergeStatement(orgId, m, now));
  for (const { sameAs: _same, ...s } of vetted.suggestions.inserts) {
    statements.push(suggestionInsertStatement({ id: newId("sug", now), orgId, agentId, runId, ...s, createdAt: now }));
  }
  if (input.profile) {
    const last = await latestProfile<ProfileBody>(db, orgId);
    const body = mergeProfile(last?.body ?? null, input.profile);
    statements.push(profileInsertStatement({ id: newId("dna", now), orgId, runId, generatedAt: now, body }));
  }
  const actions = vetted.actions.inserts.map(({ sameAs: _same, ...a }) =>
    newActionRow(a, { orgId, source: agentId, createdBy: agentId, now, runId }),
  );
  statements.push(...actions.map(actionInsertStatement));
  for (const m of vetted.actions.merges) statements.push(actionEvidenceStatement(orgId, m.id, m.evidence, now));
  const alerts = input.alerts ?? [];
  if (input.status === "ok") statements.push(resolveAgentAlertsStatement(orgId, agentId, null, now));
  else if (alerts.length > 0) statements.push(resolveAgentAlertsStatement(orgId, agentId, [...new Set(alerts.map((a) => a.service))], now));
  for (const a of alerts) {
    const alertId = newId("alr", now);
    statements.push(
      alertInsertStatement({ id: alertId, orgId, service: a.service, severity: a.severity, message: a.message, flaggedAt: now }),
      alertSourceInsertStatement({ alertId, orgId, agentId, runId }),
    );
  }
  for (const h of input.handoffs ?? []) statements.push(handoffResultStatement(runId, h.id, h.status, now));
  statements.push(requeueUnreportedStatement(runId, now));
  // Records other agents read: emitted as events after the commit, like the operations that write them one by one.
  // Held ones raise nothing until an owner releases them (src/docs/notes/prompt-injection.md#held).
  const later: DomainEvent[] = [];
  for (const i of vetted.insights.inserts) {
    const id = newId("ins", now);
    const insight = {
      id,
      orgId,
      agent: agentId,
      title: i.title,
      detail: i.detail ?? null,
      type: i.type,
      impact: i.impact,
      evidence: i.evidence,
      provenance: i.provenance,
      heldReason: i.heldReason ?? null,
    };
    statements.push(insightInsertStatement({ ...insight, createdBy: agentId, createdAt: now }));
    if (!i.heldReason) later.push({ type: "insight.created", orgId, insightId: id, impact: i.impact, at: now });
  }
  for (const m of vetted.insights.merges) statements.push(insightEvidenceStatement(orgId, m.id, m.evidence));
  for (const h of vetted.handoffs.inserts) {
    const id = newId("hof", now);
    statements.push(
      handoffInsertStatement({
        id,
        orgId,
        from: agentId,
        to: h.to,
        title: h.title,
        context: h.context ?? null,
        priority: h.priority,
        type: h.type ?? null,
        createdBy: agentId,
        createdAt: now,
        evidence: h.evidence,
        provenance: h.provenance,
        heldReason: h.heldReason ?? null,
      }),
    );
    if (!h.heldReason) later.push({ type: "handoff.created", orgId, handoffId: id, to: h.to, priority: h.priority, at: now });
  }
  for (const m of vetted.handoffs.merges) statements.push(handoffEvidenceStatement(orgId, m.id, m.evidence, now));
  for (const c of input.contacts ?? []) statements.push(upsertContactStatement(orgId, newId("con", now), c, agentId, now));
  for (const n of input.contactNotes ?? [])
    statements.push(contactNoteStatement({ id: newId("cnn", now), orgId, agentId, runId, ...n }, now));
  return { statements, actions, later, summary };
}

/**
 * A completion's outcome: stored, or refused before anything was written because it refers to
 * records that do not exist. A plain value, not an error: the run API's operation turns a refusal
 * into its 400, the model-backed run hands the issues back to the model for its one retry.
 */
export type CompletionOutcome = { ok: true; summary: string } | { ok: false; unknownReferences: FieldIssue[] };

export async function completeAgentRun(
  deps: { db: Db; clock: Clock; events: Events; config: { baseUrl: string } },
  orgId: string,
  agentId: string,
  runId: string,
  input: Completion,
  /** Statements stored in the same transaction (a model-backed run's token usage and `model` alert). */
  extra: InStatement[] = [],
  options: CompletionOptions = {},
): Promise<CompletionOutcome> {
  assertAgent(agentId);
  const { db } = deps;
  const run = await getRun(db, orgId, agentId, runId);
  if (!run) throw new ApiError(404, "not_found", `Run ${runId} of agent ${agentId} was not found.`);
  if (run.status !== "running") throw conflict(runId);
  const unknownReferences = await referenceIssues(db, orgId, runId, input);
  if (unknownReferences.length > 0) return { ok: false, unknownReferences };
  const now = deps.clock.now();
  const { statements, actions, later, summary } = await completionStatements(
    db,
    orgId,
    agentId,
    runId,
    input,
    now,
    deps.config.baseUrl,
    options,
  );
  // action.created fires on release for a held action, not before (src/docs/notes/prompt-injection.md#held).
  const created = actions.filter((a) => a.status !== "held").map(actionCreated);
  try {
    await commit(db, [...statements, ...extra], [...created, ...later], deps.events.emit);
  } catch (error) {
    if (isAlreadyCompleted(error)) throw conflict(runId); // a concurrent completion won the race
    throw error;
  }
  return { ok: true, summary };
}
