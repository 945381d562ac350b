/**
 * `crew seed --demo` (src/docs/notes/running.md): loads the content of content.ts into an organization so every
 * read endpoint shows real-looking data, all relative to `now`. The standups are composed from the
 * demo runs, actions and alerts as they stood at each standup's time; the briefings are composed
 * by the briefing agent's own code once everything else is stored.
 *
 * Running it again replaces the rows the previous run inserted (tracked in demo_rows) with fresh
 * ones relative to the new `now`; rows anyone else wrote are left alone.
 */

import { generateBriefing } from "../agents/compose-briefing.ts";
import { composeStandupBody, countHealth } from "../agents/compose-standup.ts";
import type { Health } from "../agents/health.ts";
import { AGENTS } from "../domain.ts";
import { HOUR, MINUTE } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { type ActionInsert, actionInsertStatement } from "../store/actions/actions.ts";
import { suggestionInsertStatement } from "../store/actions/suggestions.ts";
import { getUserById, listOrgUserIds } from "../store/auth/users.ts";
import { contactInsertStatement } from "../store/contacts/contacts.ts";
import type { Db } from "../store/db.ts";
import { handoffInsertStatement } from "../store/feed/handoffs.ts";
import { insightInsertStatement } from "../store/feed/insights.ts";
import { alertInsertStatement } from "../store/integrations/alerts.ts";
import { countDemoRows, type DemoTable, newestOwnRunTimes, recordDemoRows, replaceDemoRows } from "../store/orgs/demo.ts";
import type { Organization } from "../store/orgs/orgs.ts";
import { newestReportTimes, profileInsertStatement, standupInsertStatement } from "../store/reports/reports.ts";
import type { AgentRunSummary } from "../store/runs/agents.ts";
import { type RunInsert, runInsertStatement } from "../store/runs/runs.ts";
import {
  DEMO_ACTIONS,
  DEMO_ALERTS,
  DEMO_CONTACTS,
  DEMO_HANDOFFS,
  DEMO_INSIGHTS,
  DEMO_PROFILE,
  DEMO_RUNS,
  DEMO_SUGGESTIONS,
  type DemoRun,
  pulseRuns,
} from "./content.ts";

export interface DemoSummary {
  health: Record<Health, number>;
  rows: Record<DemoTable, number>;
  /** Rows of an earlier demo run that this one replaced (0 the first time). */
  replaced: number;
}

const DEMO_AUTHOR = "crew-demo";
const RUN_DURATION = 40_000;

/** The latest `hh:mm` local time in `timeZone` at or before `now` (searched in 15-minute steps). */
export function latestLocalTime(now: number, timeZone: string, hour: number, minute: number): number {
  const step = 15 * MINUTE;
  const format = new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", minute: "numeric", hourCycle: "h23" });
  for (let t = Math.floor(now / step) * step; t > now - 49 * HOUR; t -= step) {
    const parts = format.formatToParts(new Date(t));
    const value = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    if (value("hour") === hour && value("minute") === minute) return t;
  }
  return now - 24 * HOUR; // a time zone without that local time two days running: not a real one
}

interface StoredRun extends RunInsert {
  finishedAt: number;
}

/** What the dashboard would have derived for each agent at time `at`. */
function agentsAt(runs: StoredRun[], at: number): AgentRunSummary[] {
  return AGENTS.map((agent) => {
    const mine = runs.filter((r) => r.agentId === agent.id && r.finishedAt <= at).sort((a, b) => b.finishedAt - a.finishedAt);
    const last = mine[0];
    const ok = mine.find((r) => r.status === "ok");
    return {
      id: agent.id,
      name: agent.name,
      category: agent.category,
      schedule: agent.schedule,
      lastStatus: last ? (last.status as "ok" | "error") : null,
      lastFinishedAt: last?.finishedAt ?? null,
      lastSummary: last?.summary ?? null,
      lastError: last?.error ?? null,
      okFinishedAt: ok?.finishedAt ?? null,
      okSummary: ok?.summary ?? null,
      okHasData: ok?.hasData ?? false,
      pausedReason: null,
    };
  });
}

/** A standup body as src/operations/reports.ts `Standup` expects, from the demo as it stood at `at`. */
function composeStandup(mode: "morning" | "evening", at: number, now: number, runs: StoredRun[], actions: ActionInsert[]) {
  const pulse = runs.filter((r) => r.agentId === "pulse" && r.metrics && r.finishedAt <= at).sort((a, b) => b.finishedAt - a.finishedAt)[0];
  return composeStandupBody({
    mode,
    at,
    agents: agentsAt(runs, at),
    metrics: pulse?.metrics ?? null,
    openActions: actions.filter((a) => a.createdAt <= at && ["pending", "approved", "in_progress"].includes(a.status)),
    criticalAlerts: DEMO_ALERTS.filter((a) => a.severity === "critical" && now - a.ago <= at).map((a) => ({
      message: a.message,
      agent: a.agent,
      flaggedAt: now - a.ago,
    })),
  });
}

/** ULIDs are monotonic within a process: assigning ids oldest first keeps id order = time order. */
function oldestFirst<T extends { ago: number }>(items: T[]): T[] {
  return [...items].sort((a, b) => b.ago - a.ago);
}

export async function seedDemo(db: Db, org: Organization, now: number): Promise<DemoSummary> {
  const orgId = org.id;
  const morningAt = latestLocalTime(now, org.timeZone, 8, 0);
  const eveningAt = latestLocalTime(now, org.timeZone, 18, 0);
  const briefingAt = latestLocalTime(now, org.timeZone, 7, 30);

  const runSpecs: DemoRun[] = [
    ...DEMO_RUNS,
    ...pulseRuns(),
    { agent: "briefing", ago: now - briefingAt, status: "ok", summary: "Composed the daily briefing for every member.", hasData: true },
    ...[morningAt, eveningAt].map((t) => ({
      agent: "standup",
      ago: now - t,
      status: "ok" as const,
      summary: `${t === morningAt ? "Morning" : "Evening"} standup ready.`,
      hasData: true,
    })),
  ];
  // After `npm start`, the scheduler's start-up runs of standup, briefing, pulse and dna are newer
  // than the demo's designed times, and the dashboard reads each agent's latest run: move an
  // agent's demo runs forward so its newest lands just after the newest run it already has.
  const newestOwn = await newestOwnRunTimes(db, orgId);
  const demoNewest = new Map<string, number>();
  for (const r of runSpecs) demoNewest.set(r.agent, Math.min(demoNewest.get(r.agent) ?? Number.POSITIVE_INFINITY, r.ago));
  const shifted = runSpecs.map((r) => {
    const own = newestOwn.get(r.agent);
    const newestAgo = demoNewest.get(r.agent) ?? 0;
    return own !== undefined && now - newestAgo <= own ? { ...r, ago: r.ago - (own + 1 - (now - newestAgo)) } : r;
  });
  const runs: StoredRun[] = oldestFirst(shifted).map((r) => {
    const finishedAt = now - r.ago;
    return {
      id: newId("run", finishedAt),
      orgId,
      agentId: r.agent,
      status: r.status,
      summary: r.summary,
      error: r.error ?? null,
      output: r.status === "ok" ? { summary: r.summary } : undefined,
      metrics: r.metrics ?? null,
      hasData: r.hasData ?? false,
      startedAt: finishedAt - RUN_DURATION,
      finishedAt,
    };
  });
  const latestOk = (agent: string) =>
    runs.filter((r) => r.agentId === agent && r.status === "ok").sort((a, b) => b.finishedAt - a.finishedAt)[0] ?? null;

  const contacts = oldestFirst(DEMO_CONTACTS).map((c) => ({
    key: c.key,
    row: {
      id: newId("con", now - c.ago),
      orgId,
      name: c.name,
      email: c.email,
      company: c.company,
      role: c.role,
      relationship: c.relationship,
      notes: c.notes,
      createdBy: DEMO_AUTHOR,
      createdAt: now - c.ago,
    },
  }));
  const contactId = (key?: string) => contacts.find((c) => c.key === key)?.row.id ?? null;

  const actions: ActionInsert[] = oldestFirst(DEMO_ACTIONS).map((a) => ({
    id: newId("act", now - a.ago),
    orgId,
    title: a.title,
    description: a.description,
    priority: a.priority,
    category: a.category,
    status: a.status,
    source: a.source,
    type: a.type,
    lane: a.lane,
    contactId: contactId(a.contact),
    dealId: a.dealId ?? null,
    createdBy: a.source === "api" || a.source === "mcp" ? DEMO_AUTHOR : a.source,
    createdAt: now - a.ago,
  }));

  // The demo's standups and profile must be the latest of their kind (src/docs/notes/running.md), also when a server
  // already ran on this database and stored its own (empty) ones after the demo's designed times:
  // each is then stored just after the newest existing one.
  const newest = await newestReportTimes(db, orgId);
  const after = (at: number, floor: number | null) => (floor !== null && at <= floor ? floor + 1 : at);
  let previous: number | null = newest.standup;
  const standups = [
    { mode: "morning" as const, at: morningAt },
    { mode: "evening" as const, at: eveningAt },
  ]
    .sort((a, b) => a.at - b.at)
    .map((s) => {
      const at = after(s.at, previous);
      previous = at;
      return { ...s, at };
    })
    .map((s) => ({
      id: newId("std", s.at),
      orgId,
      mode: s.mode,
      generatedAt: s.at,
      body: composeStandup(s.mode, s.at, now, runs, actions),
    }));

  const dnaRun = latestOk("dna");
  const profileAt = after(dnaRun?.finishedAt ?? now, newest.profile);
  const profile = { id: newId("dna", profileAt), orgId, runId: dnaRun?.id ?? null, generatedAt: profileAt };

  const suggestions = DEMO_SUGGESTIONS.map((s) => ({ s, run: latestOk(s.agent) }))
    .sort((a, b) => (a.run?.finishedAt ?? now) - (b.run?.finishedAt ?? now))
    .map(({ s, run }) => ({
      id: newId("sug", run?.finishedAt ?? now),
      orgId,
      agentId: s.agent,
      runId: run?.id ?? null,
      title: s.title,
      detail: s.detail,
      priority: s.priority,
      createdAt: run?.finishedAt ?? now,
    }));

  const handoffs = oldestFirst(DEMO_HANDOFFS).map((h) => ({
    id: newId("hof", now - h.ago),
    orgId,
    from: h.from,
    to: h.to,
    title: h.title,
    context: h.context,
    priority: h.priority,
    type: h.type,
    status: h.status,
    createdBy: DEMO_AUTHOR,
    createdAt: now - h.ago,
    updatedAt: h.status === "queued" ? now - h.ago : Math.min(now, now - h.ago + HOUR),
  }));

  const insights = oldestFirst(DEMO_INSIGHTS).map((i) => ({
    id: newId("ins", now - i.ago),
    orgId,
    agent: i.agent,
    title: i.title,
    detail: i.detail,
    type: i.type,
    impact: i.impact,
    createdBy: DEMO_AUTHOR,
    createdAt: now - i.ago,
  }));

  const alerts = oldestFirst(DEMO_ALERTS).map((a) => ({
    id: newId("alr", now - a.ago),
    orgId,
    service: a.service,
    severity: a.severity,
    message: a.message,
    flaggedAt: now - a.ago,
  }));

  const rows: Record<Exclude<DemoTable, "briefings">, string[]> = {
    agent_runs: runs.map((r) => r.id),
    standups: standups.map((s) => s.id),
    profiles: [profile.id],
    suggestions: suggestions.map((s) => s.id),
    actions: actions.map((a) => a.id),
    contacts: contacts.map((c) => c.row.id),
    handoffs: handoffs.map((h) => h.id),
    insights: insights.map((i) => i.id),
    integration_alerts: alerts.map((a) => a.id),
  };
  const replaced = await countDemoRows(db, org.id);
  await replaceDemoRows(
    db,
    org.id,
    [
      ...runs.map(runInsertStatement),
      ...standups.map(standupInsertStatement),
      profileInsertStatement({ ...profile, body: DEMO_PROFILE }),
      ...suggestions.map(suggestionInsertStatement),
      ...contacts.map((c) => contactInsertStatement(c.row)),
      ...actions.map(actionInsertStatement),
      ...handoffs.map(handoffInsertStatement),
      ...insights.map(insightInsertStatement),
      ...alerts.map(alertInsertStatement),
    ],
    rows,
  );

  // Briefings last: the briefing agent composes them from everything stored above.
  const briefingIds: string[] = [];
  for (const userId of await listOrgUserIds(db, orgId)) {
    const user = await getUserById(db, userId);
    if (!user) continue;
    briefingIds.push((await generateBriefing(db, { id: user.id, orgId, name: user.name }, now)).id);
  }
  await recordDemoRows(db, { briefings: briefingIds });

  return {
    health: countHealth(agentsAt(runs, now), now),
    rows: {
      ...(Object.fromEntries(Object.entries(rows).map(([t, ids]) => [t, ids.length])) as Record<DemoTable, number>),
      briefings: briefingIds.length,
    },
    replaced,
  };
}
