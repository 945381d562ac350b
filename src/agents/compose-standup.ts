/**
 * The standup agent's composition (src/docs/notes/agents-runtime.md), from stored data only, no model: a briefing line per
 * concern, every agent's health, the latest pulse metrics (0 when none) and the interventions
 * that need a person — open critical/high actions, agents in error, critical integration alerts,
 * sorted critical, high, medium, low, then newest. The pure part is shared with the demo seed,
 * which composes its standups from the demo as it stood at each standup's time.
 */

import type { InStatement } from "@libsql/client";
import { type DomainEvent, type Priority, priorityRank } from "../domain.ts";
import { newId } from "../lib/random.ts";
import { listOpenActions } from "../store/actions/actions.ts";
import type { Db } from "../store/db.ts";
import { listOpenCriticalAlerts } from "../store/integrations/alerts.ts";
import type { Organization } from "../store/orgs/orgs.ts";
import { latestStandup, standupReplaceStatements } from "../store/reports/reports.ts";
import { type AgentRunSummary, latestMetrics, listAgentsWithRuns } from "../store/runs/agents.ts";
import { type Health, healthOf, summaryOf } from "./health.ts";
import type { WordsFor } from "./model-words.ts";
import { lastingText, type ModelText, namedActions, sameDayWords } from "./since-then.ts";

export type StandupMode = "morning" | "evening";

export interface Metrics {
  dau: number;
  wau: number;
  mrr: number;
}

export interface StandupBody {
  briefing: string;
  agentStatuses: { name: string; status: Health; headline: string }[];
  metrics: Metrics;
  interventions: { title: string; priority: Priority; agent: string }[];
  /** The day's model-written text, kept by regenerations (never shown as such: `briefing` carries it). */
  words?: ModelText;
}

export interface StandupInputs {
  mode: StandupMode;
  /** The snapshot's time: health is judged at it. */
  at: number;
  agents: AgentRunSummary[];
  /** The latest pulse run's metrics, or null when pulse never reported any. */
  metrics: Metrics | null;
  /** Actions awaiting approval or completion (any priority: only critical and high become interventions). */
  openActions: { title: string; priority: Priority; source: string; createdAt: number }[];
  /** Open critical integration alerts, with the agent (or, failing that, the service) they concern. */
  criticalAlerts: { message: string; agent: string; flaggedAt: number }[];
  /** Extra interventions, e.g. handoffs made to the standup agent itself. */
  extra?: { title: string; priority: Priority; agent: string; at: number }[];
}

/** Whether an agent's failed run failed for the reason an alert states (its error quotes the alert's message). */
const sameCause = (agent: AgentRunSummary, message: string) =>
  message.length > 0 && [agent.lastError, agent.lastSummary].some((text) => text?.includes(message));

const money = (n: number) => `$${n.toLocaleString("en-US")}`;

export function countHealth(agents: AgentRunSummary[], at: number): Record<Health, number> {
  const counts: Record<Health, number> = { green: 0, stale: 0, error: 0, never_ran: 0 };
  for (const agent of agents) counts[healthOf(agent, at)] += 1;
  return counts;
}

/** Local hour of `at` in `timeZone`: the standup's mode is morning before 12:00, else evening. */
export function standupModeAt(at: number, timeZone: string): StandupMode {
  const hour = Number(
    new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", hourCycle: "h23" })
      .formatToParts(new Date(at))
      .find((p) => p.type === "hour")?.value,
  );
  return hour < 12 ? "morning" : "evening";
}

export function composeStandupBody(inputs: StandupInputs): StandupBody {
  const { mode, at, agents } = inputs;
  const health = countHealth(agents, at);
  const metrics = inputs.metrics ?? { dau: 0, wau: 0, mrr: 0 };
  const failing = agents.filter((a) => healthOf(a, at) === "error");
  const interventions: { title: string; priority: Priority; agent: string; at: number }[] = [
    ...inputs.openActions
      .filter((a) => a.priority === "critical" || a.priority === "high")
      .map((a) => ({ title: a.title, priority: a.priority, agent: a.source, at: a.createdAt })),
    // One cause, one line: an agent whose critical alert says why it fails is not listed again for
    // its failed run — the alert is the agent's own, or (a person's revoked connection, which no
    // agent raised) the run failed with the alert's words.
    ...failing
      .filter((a) => !inputs.criticalAlerts.some((alert) => alert.agent === a.id || sameCause(a, alert.message)))
      .map((a) => ({ title: `${a.name}: ${summaryOf(a)}`, priority: "high" as const, agent: a.id, at: a.lastFinishedAt ?? at })),
    ...inputs.criticalAlerts.map((a) => ({ title: a.message, priority: "critical" as const, agent: a.agent, at: a.flaggedAt })),
    ...(inputs.extra ?? []),
  ].sort((a, b) => priorityRank(a.priority) - priorityRank(b.priority) || b.at - a.at);
  const opening = mode === "morning" ? "Good morning, crew." : "Evening wrap-up.";
  const briefing = [
    opening,
    `${health.green} of ${agents.length} agents are healthy, ${health.stale} stale, ${health.error} failing` +
      `${failing.length ? ` (${failing.map((a) => a.name).join(", ")})` : ""}, ${health.never_ran} not running yet.`,
    `MRR ${money(metrics.mrr)}, ${metrics.dau.toLocaleString("en-US")} daily and ${metrics.wau.toLocaleString("en-US")} weekly actives.`,
    interventions.length
      ? `${interventions.length} item${interventions.length === 1 ? " needs" : "s need"} a person; first: ${interventions[0]?.title}`
      : "Nothing needs a person right now.",
  ].join(" ");
  return {
    briefing,
    agentStatuses: agents.map((a) => ({ name: a.name, status: healthOf(a, at), headline: summaryOf(a) })),
    metrics,
    interventions: interventions.map(({ title, priority, agent }) => ({ title, priority, agent })),
  };
}

/** Composes the organization's standup from what is stored now; returns it with the statements that store it and raise its webhook. */
export async function standupStatements(
  db: Db,
  org: Organization,
  mode: StandupMode,
  now: number,
  extra: StandupInputs["extra"] = [],
  /**
   * With a model (src/docs/notes/model.md): writes the briefing text from the composed parts; null keeps the
   * composed text; "keep" (a regeneration) keeps the day's model-written text of this mode, if
   * any, and adds what changed since.
   */
  words?: WordsFor | "keep" | null,
): Promise<{ id: string; body: StandupBody; statements: InStatement[]; events: DomainEvent[] }> {
  const [agents, metrics, actions, alerts, previous] = await Promise.all([
    listAgentsWithRuns(db, org.id),
    latestMetrics(db, org.id),
    listOpenActions(db, org.id, 100),
    listOpenCriticalAlerts(db, org.id),
    words === "keep" ? latestStandup<StandupBody>(db, org.id, mode) : null,
  ]);
  const composed = composeStandupBody({
    mode,
    at: now,
    agents,
    metrics,
    openActions: actions,
    criticalAlerts: alerts.map((a) => ({ message: a.message, agent: a.agent ?? a.service, flaggedAt: a.flaggedAt })),
    extra,
  });
  const { briefing, ...parts } = composed;
  const worded = typeof words === "function" ? await words(briefing, parts) : null;
  const kept = sameDayWords(previous?.body, now, new Set(actions.map((a) => a.id)));
  const body: StandupBody = worded
    ? {
        ...composed,
        briefing: worded.text,
        words: { text: worded.text, at: now, actionIds: actions.map((a) => a.id), named: namedActions(worded.text, actions) },
      }
    : kept
      ? { ...composed, briefing: lastingText(kept, actions, org.timeZone), words: kept }
      : composed;
  const id = newId("std", now);
  const statements: InStatement[] = standupReplaceStatements({ id, orgId: org.id, mode, generatedAt: now, body });
  if (worded) statements.push(worded.usage);
  // src/docs/notes/webhooks.md: standup.ready is raised for morning standups only.
  const events: DomainEvent[] = mode === "morning" ? [{ type: "standup.ready", orgId: org.id, standupId: id, at: now }] : [];
  return { id, body, statements, events };
}
