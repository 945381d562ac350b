/** Stored agent output that is read whole: standups, briefings, company profiles (JSON bodies). */
import type { InStatement } from "@libsql/client";
import { DAY } from "../lib/clock.ts";
import { contactFigures } from "./contacts/contacts.ts";
import type { Db } from "./db.ts";
import { insightFigures } from "./feed/insights.ts";

export interface StoredReport<T> {
  id: string;
  generatedAt: number;
  body: T;
}

interface Row {
  id: string;
  generated_at: number;
  body: string;
  mode?: string;
}

const toReport = <T>(r: Row): StoredReport<T> => ({ id: r.id, generatedAt: r.generated_at, body: JSON.parse(r.body) as T });

export async function latestStandup<T>(
  db: Db,
  orgId: string,
  mode: "morning" | "evening" | "latest",
): Promise<(StoredReport<T> & { mode: "morning" | "evening" }) | null> {
  const row =
    mode === "latest"
      ? await db.one<Row>(
          "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
          [orgId],
        )
      : await db.one<Row>(
          "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? AND mode = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
          [orgId, mode],
        );
  return row ? { ...toReport<T>(row), mode: row.mode as "morning" | "evening" } : null;
}

export function standupInsertStatement(s: { id: string; orgId: string; mode: "morning" | "evening"; generatedAt: number; body: unknown }) {
  return {
    sql: "INSERT INTO standups (id, org_id, mode, generated_at, body) VALUES (?, ?, ?, ?, ?)",
    args: [s.id, s.orgId, s.mode, s.generatedAt, JSON.stringify(s.body)],
  };
}

/**
 * Regeneration stores the current standup in place of the same day's earlier one (src/docs/notes/storage-and-speed.md#what-crew-keeps-and-for-how-long):
 * one row per organization, mode and UTC day, the day's latest, instead of one per regeneration.
 */
export function standupReplaceStatements(s: Parameters<typeof standupInsertStatement>[0]): InStatement[] {
  return [
    {
      sql: "DELETE FROM standups WHERE org_id = ? AND mode = ? AND generated_at >= ? AND generated_at <= ?",
      args: [s.orgId, s.mode, s.generatedAt - (s.generatedAt % DAY), s.generatedAt],
    },
    standupInsertStatement(s),
  ];
}

export async function latestBriefing<T>(db: Db, userId: string): Promise<StoredReport<T> | null> {
  const row = await db.one<Row>(
    "SELECT id, generated_at, body FROM briefings WHERE user_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [userId],
  );
  return row ? toReport<T>(row) : null;
}

export function briefingInsertStatement(b: { id: string; orgId: string; userId: string; generatedAt: number; body: unknown }) {
  return {
    sql: "INSERT INTO briefings (id, org_id, user_id, generated_at, body) VALUES (?, ?, ?, ?, ?)",
    args: [b.id, b.orgId, b.userId, b.generatedAt, JSON.stringify(b.body)],
  };
}

/** As standupReplaceStatements: one briefing per user and UTC day, the day's latest. */
export function briefingReplaceStatements(b: Parameters<typeof briefingInsertStatement>[0]): InStatement[] {
  return [
    {
      sql: "DELETE FROM briefings WHERE user_id = ? AND generated_at >= ? AND generated_at <= ?",
      args: [b.userId, b.generatedAt - (b.generatedAt % DAY), b.generatedAt],
    },
    briefingInsertStatement(b),
  ];
}

export async function latestProfile<T>(db: Db, orgId: string): Promise<StoredReport<T> | null> {
  const row = await db.one<Row>(
    "SELECT id, generated_at, body FROM profiles WHERE org_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [orgId],
  );
  return row ? toReport<T>(row) : null;
}

export function profileInsertStatement(p: { id: string; orgId: string; runId: string | null; generatedAt: number; body: unknown }) {
  return {
    sql: "INSERT INTO profiles (id, org_id, run_id, generated_at, body) VALUES (?, ?, ?, ?, ?)",
    args: [p.id, p.orgId, p.runId, p.generatedAt, JSON.stringify(p.body)],
  };
}

/** What the dna agent derives a profile from besides the last reported one: the CRM contacts and the recent insight feed. */
export interface ProfileSources {
  contactsByRelationship: Record<string, number>;
  /** Companies with the most contacts (key and active relationships first), at most 5. */
  topCompanies: string[];
  insightsByType: Record<string, number>;
  /** The latest high-impact insights' titles, at most 3. */
  highImpactInsights: string[];
}

export async function profileSources(db: Db, orgId: string, insightsSince: number): Promise<ProfileSources> {
  const [contacts, insights] = await Promise.all([contactFigures(db, orgId), insightFigures(db, orgId, insightsSince)]);
  return {
    contactsByRelationship: contacts.byRelationship,
    topCompanies: contacts.topCompanies,
    insightsByType: insights.byType,
    highImpactInsights: insights.highImpact,
  };
}

/** Standups generated in [since, until], oldest first (the weekly review reads a week of them). */
export async function listStandupsSince<T>(
  db: Db,
  orgId: string,
  since: number,
  limit = 14,
): Promise<(StoredReport<T> & { mode: "morning" | "evening" })[]> {
  const rows = await db.all<Row>(
    "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? AND generated_at >= ? ORDER BY generated_at DESC, id DESC LIMIT ?",
    [orgId, since, limit],
  );
  return rows.reverse().map((r) => ({ ...toReport<T>(r), mode: r.mode as "morning" | "evening" }));
}

/** The profile in force at a time: the latest one generated at or before it. */
export async function profileAt<T>(db: Db, orgId: string, at: number): Promise<StoredReport<T> | null> {
  const row = await db.one<Row>(
    "SELECT id, generated_at, body FROM profiles WHERE org_id = ? AND generated_at <= ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [orgId, at],
  );
  return row ? toReport<T>(row) : null;
}

/** The newest standup and profile times of an organization (null: none yet). */
export async function newestReportTimes(db: Db, orgId: string): Promise<{ standup: number | null; profile: number | null }> {
  const row = await db.one<{ standup: number | null; profile: number | null }>(
    `SELECT (SELECT max(generated_at) FROM standups WHERE org_id = ?) AS standup,
            (SELECT max(generated_at) FROM profiles WHERE org_id = ?) AS profile`,
    [orgId, orgId],
  );
  return { standup: row?.standup ?? null, profile: row?.profile ?? null };
}
