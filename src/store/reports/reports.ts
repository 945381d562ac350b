/** Stored agent output that is read whole: standups, briefings, company profiles (JSON bodies). */
import type { InStatement } from "@libsql/client";
import { DAY } from "../../lib/clock.ts";
import { integer, json, nullable, type RowOf, type SqlRow, table, text } from "../columns.ts";
import { contactFigures } from "../contacts/contacts.ts";
import type { Db } from "../db.ts";
import { insightFigures } from "../feed/insights.ts";

export interface StoredReport<T> {
  id: string;
  generatedAt: number;
  body: T;
}

type Mode = "morning" | "evening";

/** The three tables, each in the order inserts name its columns; the body is JSON. */
const STANDUPS = table("standups", { id: text(), orgId: text(), mode: text<Mode>(), generatedAt: integer(), body: json<unknown>(null) });
const BRIEFINGS = table("briefings", { id: text(), orgId: text(), userId: text(), generatedAt: integer(), body: json<unknown>(null) });
const PROFILES = table("profiles", {
  id: text(),
  orgId: text(),
  runId: nullable(text()),
  generatedAt: integer(),
  body: json<unknown>(null),
});

/** What a read selects (`id, generated_at, body`, and a standup's `mode`). */
const REPORT = PROFILES.pick("id", "generatedAt", "body");
const MODE = STANDUPS.pick("mode");

// The body's type is the caller's: each report kind has its own (src/agents/).
const toReport = <T>(row: SqlRow): StoredReport<T> => {
  const r = REPORT.read(row);
  return { ...r, body: r.body as T };
};

const toStandup = <T>(row: SqlRow): StoredReport<T> & { mode: Mode } => ({ ...toReport<T>(row), ...MODE.read(row) });

export async function latestStandup<T>(
  db: Db,
  orgId: string,
  mode: "morning" | "evening" | "latest",
): Promise<(StoredReport<T> & { mode: Mode }) | null> {
  const row =
    mode === "latest"
      ? await db.one<SqlRow>(
          "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
          [orgId],
        )
      : await db.one<SqlRow>(
          "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? AND mode = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
          [orgId, mode],
        );
  return row ? toStandup<T>(row) : null;
}

export function standupInsertStatement(s: RowOf<typeof STANDUPS>) {
  return {
    sql: `INSERT INTO standups (${STANDUPS.insertColumns}) VALUES (${STANDUPS.placeholders})`,
    args: STANDUPS.args(s),
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
  const row = await db.one<SqlRow>(
    "SELECT id, generated_at, body FROM briefings WHERE user_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [userId],
  );
  return row ? toReport<T>(row) : null;
}

export function briefingInsertStatement(b: RowOf<typeof BRIEFINGS>) {
  return {
    sql: `INSERT INTO briefings (${BRIEFINGS.insertColumns}) VALUES (${BRIEFINGS.placeholders})`,
    args: BRIEFINGS.args(b),
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
  const row = await db.one<SqlRow>(
    "SELECT id, generated_at, body FROM profiles WHERE org_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [orgId],
  );
  return row ? toReport<T>(row) : null;
}

export function profileInsertStatement(p: RowOf<typeof PROFILES>) {
  return {
    sql: `INSERT INTO profiles (${PROFILES.insertColumns}) VALUES (${PROFILES.placeholders})`,
    args: PROFILES.args(p),
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
): Promise<(StoredReport<T> & { mode: Mode })[]> {
  const rows = await db.all<SqlRow>(
    "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? AND generated_at >= ? ORDER BY generated_at DESC, id DESC LIMIT ?",
    [orgId, since, limit],
  );
  return rows.reverse().map(toStandup<T>);
}

/** The profile in force at a time: the latest one generated at or before it. */
export async function profileAt<T>(db: Db, orgId: string, at: number): Promise<StoredReport<T> | null> {
  const row = await db.one<SqlRow>(
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
