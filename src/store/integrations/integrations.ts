/**
 * Connected integrations of a user (`integrations` table: one row per user and kind, its config
 * JSON holding secrets only sealed, see src/integrations/secret-box.ts). The alerts a user's own
 * integration raises or resolves are in alerts.ts.
 */
import type { InStatement } from "@libsql/client";
import { integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export type IntegrationKind = "calendar" | "google" | "microsoft";

export interface StoredIntegration {
  config: string;
  createdAt: number;
  updatedAt: number;
}

export async function hasIntegration(db: Db, userId: string, kind: IntegrationKind): Promise<boolean> {
  const row = await db.one<{ found: number }>("SELECT 1 AS found FROM integrations WHERE user_id = ? AND kind = ?", [userId, kind]);
  return row !== null;
}

const INTEGRATION = table("integrations", { config: text(), createdAt: integer(), updatedAt: integer() });

export async function getIntegration(db: Db, userId: string, kind: IntegrationKind): Promise<StoredIntegration | null> {
  const row = await db.one<SqlRow>("SELECT config, created_at, updated_at FROM integrations WHERE user_id = ? AND kind = ?", [
    userId,
    kind,
  ]);
  return row ? INTEGRATION.read(row) : null;
}

/** A user of the organization with a connected calendar (src/docs/notes/calendar.md, the calendar agent). */
export interface CalendarUser {
  userId: string;
  name: string;
  timeZone: string | null;
}

const CALENDAR_USER = table("users", { userId: text("id"), name: text(), timeZone: nullable(text()) });

/** The active users of the organization with a connected calendar: owners first, then by who connected first; at most `limit`. */
export async function connectedCalendarUsers(db: Db, orgId: string, limit: number): Promise<CalendarUser[]> {
  const rows = await db.all<SqlRow>(
    `SELECT u.id, u.name, u.time_zone FROM integrations i JOIN users u ON u.id = i.user_id
      WHERE u.org_id = ? AND i.kind = 'calendar' AND u.deactivated_at IS NULL
      ORDER BY CASE u.role WHEN 'owner' THEN 0 ELSE 1 END, i.created_at, u.id LIMIT ?`,
    [orgId, limit],
  );
  return rows.map(CALENDAR_USER.read);
}

/** Connects or reconnects: a second connection replaces the first (one per user and kind). */
export function saveIntegrationStatement(userId: string, kind: IntegrationKind, config: string, now: number): InStatement {
  return {
    sql: `INSERT INTO integrations (user_id, kind, config, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (user_id, kind) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
    args: [userId, kind, config, now, now],
  };
}

export function deleteIntegrationStatement(userId: string, kind: IntegrationKind): InStatement {
  return { sql: "DELETE FROM integrations WHERE user_id = ? AND kind = ?", args: [userId, kind] };
}
