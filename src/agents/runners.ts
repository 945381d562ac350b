/**
 * Built-in runners (src/docs/notes/agents-runtime.md): standup, briefing, pulse and dna compose from stored data, no model.
 * Each run is a real run row — started (claiming the agent's queued handoffs), then completed in
 * one batch together with everything it stores and the webhook events it raises — so health,
 * history and the one-hour sweep treat built-in and external runs alike.
 */
import type { InStatement } from "@libsql/client";
import type { Config } from "../config.ts";
import type { DomainEvent } from "../domain.ts";
import { deliveryStatements } from "../integrations/notify/enqueue.ts";
import type { Clock } from "../lib/clock.ts";
import { DAY, iso } from "../lib/clock.ts";
import type { Events } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import { newId } from "../lib/random.ts";
import { getUserById, listOrgUserIds } from "../store/auth/users.ts";
import { commit } from "../store/commit.ts";
import { recentContacts } from "../store/contacts/contacts.ts";
import type { Db } from "../store/db.ts";
import { listRecentInsights } from "../store/feed/insights.ts";
import type { Organization } from "../store/orgs/orgs.ts";
import { latestProfile, profileInsertStatement, profileSources } from "../store/reports/reports.ts";
import { recentMetrics } from "../store/runs/agents.ts";
import {
  type ClaimedHandoff,
  completeRunStatement,
  handoffResultStatement,
  requeueUnreportedStatement,
  startRun,
} from "../store/runs/runs.ts";
import { briefingStatements } from "./compose-briefing.ts";
import { composeProfile, DERIVED_PATTERNS, EMPTY_PROFILE_BODY, type ProfileBody } from "./compose-profile.ts";
import { type StandupMode, standupModeAt, standupStatements } from "./compose-standup.ts";
import { JOBS } from "./jobs.ts";
import { type AskModel, modelAsker, TrendWords, type WordsFor, wordsFor } from "./model-words.ts";
import { profileClaims } from "./profile-claims.ts";

export interface RunDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** With it, a run asked for `words` lets the connected model write standup and briefing text (src/docs/notes/model.md). */
  config?: Config;
  /** Where the run's domain events go after it commits (a bare store has none). */
  events?: Pick<Events, "emit">;
}

interface RunnerContext {
  db: Db;
  org: Organization;
  now: number;
  runId: string;
  handoffs: ClaimedHandoff[];
  /** Standup only: the snapshot's mode (default: by local time, before 12:00 morning). */
  mode?: StandupMode;
  /** Standup and briefing: the model's writer, when one is connected and the run asked for it; "keep" keeps the day's model text. */
  words?: WordsFor | "keep" | null;
  /** dna and pulse: the connected model, when the run asked for words (src/docs/notes/model.md). */
  ask?: AskModel | null;
}

interface RunnerResult {
  summary: string;
  output?: unknown;
  metrics?: { dau: number; wau: number; mrr: number } | null;
  hasData: boolean;
  statements: InStatement[];
  /** Domain events of what the run stored (standup.ready, briefing.completed), committed with it. */
  events?: DomainEvent[];
}

type Runner = (ctx: RunnerContext) => Promise<RunnerResult>;

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;
const received = (handoffs: ClaimedHandoff[]) => (handoffs.length ? ` Received ${plural(handoffs.length, "handoff")}.` : "");

const RUNNERS: Record<string, Runner> = {
  async standup(ctx) {
    const mode = ctx.mode ?? standupModeAt(ctx.now, ctx.org.timeZone);
    // Handoffs to the standup agent surface as interventions of this snapshot, from the agent that sent them.
    const extra = ctx.handoffs.map((h) => ({ title: h.title, priority: h.priority, agent: h.from, at: h.createdAt }));
    const standup = await standupStatements(ctx.db, ctx.org, mode, ctx.now, extra, ctx.words);
    const count = standup.body.interventions.length;
    return {
      summary: `${mode === "morning" ? "Morning" : "Evening"} standup ready: ${count ? `${plural(count, "item")} for a person` : "nothing needs a person"}.${received(ctx.handoffs)}`,
      output: { standupId: standup.id, mode },
      hasData: true,
      statements: standup.statements,
      events: standup.events,
    };
  },

  async briefing(ctx) {
    const ids: string[] = [];
    const statements: InStatement[] = [];
    const events: DomainEvent[] = [];
    for (const userId of await listOrgUserIds(ctx.db, ctx.org.id)) {
      const user = await getUserById(ctx.db, userId);
      if (!user) continue;
      const briefing = await briefingStatements(
        ctx.db,
        { id: user.id, orgId: ctx.org.id, name: user.name, timeZone: ctx.org.timeZone },
        ctx.now,
        ctx.words,
      );
      ids.push(briefing.id);
      statements.push(...briefing.statements);
      events.push(...briefing.events);
    }
    return {
      summary: `${ids.length ? `Composed the daily briefing for ${plural(ids.length, "person", "people")}.` : "Nobody to brief yet: the organization has no users."}${received(ctx.handoffs)}`,
      output: { briefingIds: ids },
      hasData: ids.length > 0,
      statements,
      events,
    };
  },

  async pulse(ctx) {
    const history = await recentMetrics(ctx.db, ctx.org.id, 14);
    const metrics = history[0] ? { dau: history[0].dau, wau: history[0].wau, mrr: history[0].mrr } : null;
    let summary = metrics
      ? `DAU ${metrics.dau.toLocaleString("en-US")}, WAU ${metrics.wau.toLocaleString("en-US")}, MRR $${metrics.mrr.toLocaleString("en-US")} (latest reported).`
      : "No metrics reported yet: pulse shows daily and weekly actives and MRR once a program of yours reports them (Docs → Agents runtime).";
    const statements: InStatement[] = [];
    // With a model, the trend in words over the reported history (oldest first), after the figures.
    const trend =
      metrics && ctx.ask
        ? await ctx.ask(
            'Say in one sentence how these metrics are trending (daily and weekly actives, MRR), oldest report first. Answer with {"trend": "…"}.',
            history.map((m) => ({ at: iso(m.at), dau: m.dau, wau: m.wau, mrr: m.mrr })).reverse(),
            TrendWords,
          )
        : null;
    if (trend) {
      summary = `${summary} ${trend.value.trend}`;
      statements.push(trend.usage);
    }
    return { summary: summary + received(ctx.handoffs), metrics, hasData: metrics !== null, statements };
  },

  async dna(ctx) {
    const [last, sources, insights, contacts] = await Promise.all([
      latestProfile<ProfileBody>(ctx.db, ctx.org.id),
      profileSources(ctx.db, ctx.org.id, ctx.now - 30 * DAY),
      listRecentInsights(ctx.db, ctx.org.id, 20, null),
      recentContacts(ctx.db, ctx.org.id, 20),
    ]);
    const composed = composeProfile(last?.body ?? null, sources);
    const derived = composed.patterns.filter((p) => DERIVED_PATTERNS.includes(p.name));
    // Nothing to read: the profile stays unknown, whatever an earlier profile said (src/docs/notes/prompt-injection.md#words).
    const empty = composed.pipeline.length === 0 && insights.insights.length === 0 && contacts.length === 0;
    const worded = !empty && ctx.ask ? await profileClaims(ctx.ask, composed.pipeline, insights.insights, contacts, sources) : null;
    const body: ProfileBody = empty
      ? { ...EMPTY_PROFILE_BODY, pipeline: composed.pipeline, patterns: derived }
      : worded
        ? {
            ...composed,
            ...(worded.archetype ? { archetype: worded.archetype } : {}),
            strengths: worded.strengths,
            weaknesses: worded.weaknesses,
            patterns: [...worded.patterns.filter((p) => !DERIVED_PATTERNS.includes(p.name)), ...derived],
            claimEvidence: worded.evidence,
          }
        : composed;
    const open = body.pipeline.filter((d) => d.stage !== "closed");
    const worth = open.reduce((sum, d) => sum + d.value, 0);
    return {
      summary: `Profile refreshed (${body.archetype}): ${plural(open.length, "open deal")} worth $${worth.toLocaleString("en-US")}.${received(ctx.handoffs)}`,
      output: { archetype: body.archetype, patterns: body.patterns.length, deals: body.pipeline.length },
      hasData: body.archetype !== "unknown" || body.pipeline.length > 0 || body.patterns.length > 0,
      statements: [
        profileInsertStatement({ id: newId("dna", ctx.now), orgId: ctx.org.id, runId: ctx.runId, generatedAt: ctx.now, body }),
        ...(worded ? [worded.usage] : []),
      ],
    };
  },
};

// Which agents are built-in is the catalog's word (src/agents/jobs.ts), not this table's keys.
export const BUILT_IN_RUNNERS: readonly string[] = JOBS.filter((j) => j.runner === "built-in").map((j) => j.id);
export const hasRunner = (agentId: string) => BUILT_IN_RUNNERS.includes(agentId);

export interface BuiltInRun {
  runId: string;
  agentId: string;
  status: "ok" | "error";
  summary: string;
}

/** Runs a built-in runner once now. Never throws for the runner's own failure: the run is stored as an error. */
export async function runBuiltIn(
  deps: RunDeps,
  org: Organization,
  agentId: string,
  /**
   * words: scheduled and on-demand runs let a connected model write the standup and briefing text, dna's profile and pulse's trend; regenerations do not.
   * deliver: the same runs send the briefing and standup where people work (src/docs/notes/delivery.md: mail, Slack, Teams); regenerations do not.
   */
  options: { mode?: StandupMode; words?: boolean; deliver?: boolean } = {},
): Promise<BuiltInRun> {
  const runner = RUNNERS[agentId];
  if (!runner) throw new Error(`agent ${agentId} has no built-in runner`);
  const now = deps.clock.now();
  const runId = newId("run", now);
  const handoffs = await startRun(deps.db, { id: runId, orgId: org.id, agentId, startedAt: now });
  try {
    // A run that did not ask for words (a regeneration) keeps the day's model-written text (src/docs/notes/model.md).
    const ask = options.words && deps.config ? await modelAsker({ ...deps, config: deps.config }, org.id, agentId, runId) : null;
    const words = !options.words ? "keep" : ask && (agentId === "standup" || agentId === "briefing") ? wordsFor(ask, agentId) : null;
    const result = await runner({ db: deps.db, org, now, runId, handoffs, mode: options.mode, words, ask });
    // Words refused or failed: the composed text stands, and the run says so (src/docs/notes/prompt-injection.md#words).
    if (ask?.refusals.length) result.summary = `${result.summary} Composed text used: ${ask.refusals[0]}.`;
    if (ask?.spent.length) result.statements.push(...ask.spent);
    const outbox = options.deliver ? await deliveryStatements(deps.db, deps.config, { org, agentId, output: result.output, now }) : [];
    const finishedAt = deps.clock.now();
    await commit(
      deps.db,
      [
        completeRunStatement({
          runId,
          status: "ok",
          summary: result.summary,
          error: null,
          output: result.output,
          metrics: result.metrics ?? null,
          hasData: result.hasData,
          finishedAt,
        }),
        ...result.statements,
        ...outbox,
        ...handoffs.map((h) => handoffResultStatement(runId, h.id, "done", finishedAt)),
      ],
      result.events ?? [],
      deps.events?.emit ?? (() => {}),
    );
    return { runId, agentId, status: "ok", summary: result.summary };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log.error("built-in agent run failed", { agent: agentId, run: runId, error: message });
    const summary = `The built-in ${agentId} runner failed: ${message.split("\n")[0]}`;
    const finishedAt = deps.clock.now();
    await deps.db.batch(
      [
        completeRunStatement({ runId, status: "error", summary, error: message, metrics: null, hasData: false, finishedAt }),
        requeueUnreportedStatement(runId, finishedAt),
      ],
      "write",
    );
    return { runId, agentId, status: "error", summary };
  }
}
