/**
 * The briefing agent's composition (src/docs/notes/agents-runtime.md): from stored data only, no model. Critical pending
 * actions first, high-impact insights since the previous briefing first, recommendations are the
 * open suggestions' titles, highest priority first.
 */

import type { InStatement } from "@libsql/client";
import type { DomainEvent } from "../domain.ts";
import { localParts } from "../integrations/zoned-time.ts";
import { DAY } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { listOpenActions } from "../store/actions/actions.ts";
import { listOpenSuggestions } from "../store/actions/suggestions.ts";
import { commit } from "../store/commit.ts";
import type { Db } from "../store/db.ts";
import { listInsightsSince } from "../store/feed/insights.ts";
import { briefingReplaceStatements, latestBriefing } from "../store/reports/reports.ts";
import type { WordsFor } from "./model-words.ts";
import { lastingText, type ModelText, namedActions, sameDayWords } from "./since-then.ts";

export interface BriefingBody {
  briefing: string;
  recommendations: string[];
  pendingActions: { id: string; title: string; priority: string; source: string }[];
  /** The day's model-written text, kept by regenerations (never shown as such: `briefing` carries it). */
  words?: ModelText;
}

/** The greeting and the date of the person's wall clock (a briefing regenerated at 21:17 does not say "Good morning"). */
export function greetingAt(now: number, timeZone: string): { greeting: string; date: string } {
  const t = localParts(timeZone, now);
  const greeting = t.hour >= 5 && t.hour < 12 ? "Good morning" : t.hour >= 12 && t.hour < 18 ? "Good afternoon" : "Good evening";
  const date = `${t.year}-${String(t.month).padStart(2, "0")}-${String(t.day).padStart(2, "0")}`;
  return { greeting, date };
}

export async function composeBriefing(
  db: Db,
  orgId: string,
  userName: string,
  since: number,
  now: number,
  timeZone = "UTC",
): Promise<BriefingBody> {
  const [actions, insights, suggestions] = await Promise.all([
    listOpenActions(db, orgId, 50),
    listInsightsSince(db, orgId, since, 20),
    listOpenSuggestions(db, orgId, undefined, 10),
  ]);
  const pendingActions = actions.map((a) => ({ id: a.id, title: a.title, priority: a.priority, source: a.source }));
  const recommendations = suggestions.map((s) => s.title);

  const { greeting, date } = greetingAt(now, timeZone);
  const lines: string[] = [`${greeting}${userName ? `, ${userName}` : ""}. Here is your briefing for ${date}.`];
  const critical = pendingActions.filter((a) => a.priority === "critical");
  if (critical.length > 0) lines.push(`Critical: ${critical.map((a) => a.title).join("; ")}.`);
  const rest = pendingActions.length - critical.length;
  lines.push(
    pendingActions.length === 0
      ? "No actions are waiting for you."
      : `${pendingActions.length} action${pendingActions.length === 1 ? "" : "s"} awaiting approval or completion${critical.length ? ` (${critical.length} critical, ${rest} other)` : ""}.`,
  );
  if (insights.length > 0) {
    lines.push(
      `New insights: ${insights
        .slice(0, 5)
        .map((i) => `${i.title}${i.impact === "high" ? " (high impact)" : ""}`)
        .join("; ")}.`,
    );
  }
  if (recommendations.length > 0) lines.push(`Recommended: ${recommendations.slice(0, 3).join("; ")}.`);
  return { briefing: lines.join(" "), recommendations, pendingActions };
}

/**
 * Composes a briefing for one user from what is stored now; returns it with the statements that
 * store it and the `briefing.completed` event to commit with them (store/commit.ts).
 */
export async function briefingStatements(
  db: Db,
  user: { id: string; orgId: string; name: string; timeZone?: string },
  now: number,
  /**
   * With a model (src/docs/notes/model.md): writes the briefing text from the composed parts; null keeps the
   * composed text; "keep" (a regeneration) keeps the day's model-written text, if any, and adds
   * what changed since.
   */
  words?: WordsFor | "keep" | null,
): Promise<{ id: string; generatedAt: number; body: BriefingBody; statements: InStatement[]; events: DomainEvent[] }> {
  const previous = await latestBriefing<BriefingBody>(db, user.id);
  const composed = await composeBriefing(db, user.orgId, user.name, previous?.generatedAt ?? now - DAY, now, user.timeZone);
  const { briefing, ...parts } = composed;
  const worded = typeof words === "function" ? await words(briefing, { member: user.name, ...parts }) : null;
  const seen = composed.pendingActions.map((a) => a.id);
  const kept = words === "keep" ? sameDayWords(previous?.body, now, new Set(seen)) : null;
  const body: BriefingBody = worded
    ? {
        ...composed,
        briefing: worded.text,
        words: { text: worded.text, at: now, actionIds: seen, named: namedActions(worded.text, composed.pendingActions) },
      }
    : kept
      ? { ...composed, briefing: lastingText(kept, composed.pendingActions, user.timeZone), words: kept }
      : composed;
  const id = newId("brf", now);
  const event: DomainEvent = {
    type: "briefing.completed",
    orgId: user.orgId,
    userId: user.id,
    briefingId: id,
    summary: summaryOf(body),
    at: now,
  };
  return {
    id,
    generatedAt: now,
    body,
    statements: [
      ...briefingReplaceStatements({ id, orgId: user.orgId, userId: user.id, generatedAt: now, body }),
      ...(worded ? [worded.usage] : []),
    ],
    events: [event],
  };
}

/** The webhook's one-line summary: the briefing's text, cut at a sentence near 280 characters. */
function summaryOf(body: BriefingBody): string {
  if (body.briefing.length <= 280) return body.briefing;
  const cut = body.briefing.slice(0, 280);
  const end = cut.lastIndexOf(". ");
  return end > 80 ? cut.slice(0, end + 1) : `${cut.slice(0, 279)}…`;
}

/** Composes and stores a briefing for one user (through commit(), with its event); returns its id and body. */
export async function generateBriefing(
  db: Db,
  user: { id: string; orgId: string; name: string },
  now: number,
  emit: (event: DomainEvent) => void = () => {},
): Promise<{ id: string; generatedAt: number; body: BriefingBody }> {
  const { statements, events, ...briefing } = await briefingStatements(db, user, now);
  await commit(db, statements, events, emit);
  return briefing;
}
