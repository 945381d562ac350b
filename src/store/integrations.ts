/**
 * Connected integrations of a user (`integrations` table: one row per user and kind, its config
 * JSON holding secrets only sealed, see src/integrations/secret-box.ts), and the integration
 * alerts a user's own integration raises or resolves (`integration_alerts` rows with a user_id).
 */
import type { InStatement } from "@libsql/client";
import type { Db } from "./db.ts";

export type IntegrationKind = "calendar";

export interface StoredIntegration {
  config: string;
  createdAt: number;
  updatedAt: number;
}

export async function hasIntegration(db: Db, userId: string, kind: IntegrationKind): Promise<boolean> {
  const row = await db.one<{ found: number }>("SELECT 1 AS found FROM integrations WHERE user_id = ? AND kind = ?", [userId, kind]);
  return row !== null;
}

export async function getIntegration(db: Db, userId: string, kind: IntegrationKind): Promise<StoredIntegration | null> {
  const row = await db.one<{ config: string; created_at: number; updated_at: number }>(
    "SELECT config, created_at, updated_at FROM integrations WHERE user_id = ? AND kind = ?",
    [userId, kind],
  );
  return row && { config: row.config, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** A user of the organization with a connected calendar (src/docs/notes/calendar.md, the calendar agent). */
export interface CalendarUser {
  userId: string;
  name: string;
  timeZone: string | null;
}

/** The active users of the organization with a connected calendar: owners first, then by who connected first; at most `limit`. */
export async function connectedCalendarUsers(db: Db, orgId: string, limit: number): Promise<CalendarUser[]> {
  const rows = await db.all<{ id: string; name: string; time_zone: string | null }>(
    `SELECT u.id, u.name, u.time_zone FROM integrations i JOIN users u ON u.id = i.user_id
      WHERE u.org_id = ? AND i.kind = 'calendar' AND u.deactivated_at IS NULL
      ORDER BY CASE u.role WHEN 'owner' THEN 0 ELSE 1 END, i.created_at, u.id LIMIT ?`,
    [orgId, limit],
  );
  return rows.map((r) => ({ userId: r.id, name: r.name, timeZone: r.time_zone }));
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

export interface UserAlertKey {
  orgId: string;
  userId: string;
  service: string;
}

/** Closes the user's open alerts of that service (the integration works again, or is gone). */
export function resolveUserAlertsStatement(key: UserAlertKey, now: number): InStatement {
  return {
    sql: `UPDATE integration_alerts SET resolved_at = ?
           WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL`,
    args: [now, key.orgId, key.userId, key.service],
  };
}

export async function resolveUserAlerts(db: Db, key: UserAlertKey, now: number): Promise<void> {
  await db.execute(resolveUserAlertsStatement(key, now));
}

/**
 * One open critical alert per user and service: the first failure opens it, later failures only
 * update its message (it keeps the time the trouble began). One transaction, so two failing calls
 * at once still make one alert.
 */
export async function raiseUserAlert(db: Db, key: UserAlertKey & { id: string; message: string }, now: number): Promise<void> {
  await db.batch(
    [
      {
        sql: `UPDATE integration_alerts SET message = ?
               WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL`,
        args: [key.message, key.orgId, key.userId, key.service],
      },
      {
        sql: `INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at)
              SELECT ?, ?, ?, ?, 'critical', ?, ?
               WHERE NOT EXISTS (SELECT 1 FROM integration_alerts
                                  WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL)`,
        args: [key.id, key.orgId, key.userId, key.service, key.message, now, key.orgId, key.userId, key.service],
      },
    ],
    "write",
  );
}

export async function openUserAlert(db: Db, key: UserAlertKey): Promise<{ message: string; flaggedAt: number } | null> {
  const row = await db.one<{ message: string; flagged_at: number }>(
    `SELECT message, flagged_at FROM integration_alerts
      WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL
      ORDER BY flagged_at DESC LIMIT 1`,
    [key.orgId, key.userId, key.service],
  );
  return row && { message: row.message, flaggedAt: row.flagged_at };
}
