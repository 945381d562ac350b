/**
 * Integration alerts (`integration_alerts`): every statement on them —
 * those an agent run raises and resolves (with `alert_sources` naming the run), the organization's
 * (a failing source, a delivery service, the model, a budget warning) and a user's own (a failing
 * integration of theirs), and the reads of the dashboard and the agents.
 */
import type { InStatement } from "@libsql/client";
import { integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface IntegrationAlert {
  service: string;
  severity: "critical" | "warning";
  message: string;
  flaggedAt: number;
}

type Severity = IntegrationAlert["severity"];

/** The integration_alerts table, in the order inserts name its columns. */
const ALERTS = table("integration_alerts", {
  id: text(),
  orgId: text(),
  userId: nullable(text()),
  service: text(),
  severity: text<Severity>(),
  message: text(),
  flaggedAt: integer(),
});

const ALERT = ALERTS.pick("service", "severity", "message", "flaggedAt");

/** An open alert as its raiser reads it back. */
const OPEN = ALERTS.pick("message", "flaggedAt");

/** Open alerts of the organization and of this user, critical first, then newest. */
export async function listOpenAlerts(db: Db, orgId: string, userId: string | null): Promise<IntegrationAlert[]> {
  const rows = await db.all<SqlRow>(
    `SELECT service, severity, message, flagged_at FROM integration_alerts
      WHERE org_id = ? AND resolved_at IS NULL AND (user_id IS NULL OR user_id = ?)
      ORDER BY severity = 'critical' DESC, flagged_at DESC, id DESC`,
    [orgId, userId],
  );
  return rows.map(ALERT.read);
}

export function alertInsertStatement(a: {
  id: string;
  orgId: string;
  userId?: string | null;
  service: string;
  severity: "critical" | "warning";
  message: string;
  flaggedAt: number;
}) {
  return {
    sql: `INSERT INTO integration_alerts (${ALERTS.insertColumns}) VALUES (${ALERTS.placeholders})`,
    args: ALERTS.args({ ...a, userId: a.userId ?? null }),
  };
}

/** Records which agent run raised an alert (same batch as the alert itself). */
export function alertSourceInsertStatement(s: { alertId: string; orgId: string; agentId: string; runId: string }) {
  return {
    sql: "INSERT INTO alert_sources (alert_id, org_id, agent_id, run_id) VALUES (?, ?, ?, ?)",
    args: [s.alertId, s.orgId, s.agentId, s.runId],
  };
}

/**
 * Resolves the open alerts an agent raised through its runs: all of them (`services` null), or
 * only those of the named services.
 */
export function resolveAgentAlertsStatement(orgId: string, agentId: string, services: string[] | null, now: number) {
  const list = services ?? [];
  return {
    sql: `UPDATE integration_alerts SET resolved_at = ?
           WHERE org_id = ? AND resolved_at IS NULL
             AND id IN (SELECT alert_id FROM alert_sources WHERE org_id = ? AND agent_id = ?)
             ${services ? `AND service IN (${list.map(() => "?").join(", ") || "NULL"})` : ""}`,
    args: [now, orgId, orgId, agentId, ...list],
  };
}

/** A critical alert and the agent whose run raised it, if one did. */
const CRITICAL = table("integration_alerts", {
  ...ALERTS.pick("service", "message", "flaggedAt").columns,
  agent: nullable(text("agent_id")),
});

/** Open critical alerts of the whole organization (every user's too), newest first, with the agent that raised each. */
export async function listOpenCriticalAlerts(
  db: Db,
  orgId: string,
): Promise<{ service: string; message: string; flaggedAt: number; agent: string | null }[]> {
  const rows = await db.all<SqlRow>(
    `SELECT a.service, a.message, a.flagged_at, s.agent_id FROM integration_alerts a
       LEFT JOIN alert_sources s ON s.alert_id = a.id
      WHERE a.org_id = ? AND a.resolved_at IS NULL AND a.severity = 'critical'
      ORDER BY a.flagged_at DESC, a.id DESC`,
    [orgId],
  );
  return rows.map(CRITICAL.read);
}

/** Closes the organization's open alert of that service (`imap`, `feeds`). */
export function resolveOrgAlertStatement(orgId: string, service: string, now: number): InStatement {
  return {
    sql: `UPDATE integration_alerts SET resolved_at = ?
           WHERE org_id = ? AND user_id IS NULL AND service = ? AND resolved_at IS NULL`,
    args: [now, orgId, service],
  };
}

export async function openOrgAlert(db: Db, orgId: string, service: string): Promise<{ message: string; flaggedAt: number } | null> {
  const row = await db.one<SqlRow>(
    `SELECT message, flagged_at FROM integration_alerts
      WHERE org_id = ? AND user_id IS NULL AND service = ? AND resolved_at IS NULL
      ORDER BY flagged_at DESC LIMIT 1`,
    [orgId, service],
  );
  return row ? OPEN.read(row) : null;
}

/**
 * One open critical alert per organization and service: the first failure opens it, later ones
 * only update its message (it keeps the time the trouble began). One batch, so two failing reads
 * at once still make one alert.
 */
export async function raiseOrgAlert(
  db: Db,
  a: { id: string; orgId: string; service: string; message: string },
  now: number,
): Promise<void> {
  await db.batch(
    [
      {
        sql: `UPDATE integration_alerts SET message = ?
               WHERE org_id = ? AND user_id IS NULL AND service = ? AND resolved_at IS NULL`,
        args: [a.message, a.orgId, a.service],
      },
      {
        sql: `INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at)
              SELECT ?, ?, NULL, ?, 'critical', ?, ?
               WHERE NOT EXISTS (SELECT 1 FROM integration_alerts
                                  WHERE org_id = ? AND user_id IS NULL AND service = ? AND resolved_at IS NULL)`,
        args: [a.id, a.orgId, a.service, a.message, now, a.orgId, a.service],
      },
    ],
    "write",
  );
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
 * One open alert per user and service (critical unless said): the first failure opens it, later failures only
 * update its message and severity (it keeps the time the trouble began). One transaction, so two failing calls
 * at once still make one alert.
 */
export async function raiseUserAlert(
  db: Db,
  key: UserAlertKey & { id: string; message: string; severity?: Severity },
  now: number,
): Promise<void> {
  const severity = key.severity ?? "critical";
  await db.batch(
    [
      {
        // The one open alert takes the latest severity too: a revoked grant after a busy spell is critical.
        sql: `UPDATE integration_alerts SET message = ?, severity = ?
               WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL`,
        args: [key.message, severity, key.orgId, key.userId, key.service],
      },
      {
        sql: `INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at)
              SELECT ?, ?, ?, ?, ?, ?, ?
               WHERE NOT EXISTS (SELECT 1 FROM integration_alerts
                                  WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL)`,
        args: [key.id, key.orgId, key.userId, key.service, severity, key.message, now, key.orgId, key.userId, key.service],
      },
    ],
    "write",
  );
}

export async function openUserAlert(db: Db, key: UserAlertKey): Promise<{ message: string; flaggedAt: number } | null> {
  const row = await db.one<SqlRow>(
    `SELECT message, flagged_at FROM integration_alerts
      WHERE org_id = ? AND user_id = ? AND service = ? AND resolved_at IS NULL
      ORDER BY flagged_at DESC LIMIT 1`,
    [key.orgId, key.userId, key.service],
  );
  return row ? OPEN.read(row) : null;
}

/**
 * The organization-wide alert of a delivery service (`slack`, `teams`): raised once while open
 * (a second failure does not add another), resolved by the next success.
 */
export async function raiseServiceAlert(
  db: Db,
  a: { id: string; orgId: string; service: string; message: string; now: number },
): Promise<void> {
  await db.run(
    `INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at)
     SELECT ?, ?, NULL, ?, 'critical', ?, ? WHERE NOT EXISTS (
       SELECT 1 FROM integration_alerts WHERE org_id = ? AND service = ? AND user_id IS NULL AND resolved_at IS NULL)`,
    [a.id, a.orgId, a.service, a.message, a.now, a.orgId, a.service],
  );
}

export async function clearServiceAlert(db: Db, orgId: string, service: string, now: number): Promise<void> {
  await db.run(
    "UPDATE integration_alerts SET resolved_at = ? WHERE org_id = ? AND service = ? AND user_id IS NULL AND resolved_at IS NULL",
    [now, orgId, service],
  );
}

export const MODEL_ALERT_SERVICE = "model";

/**
 * One open critical `model` alert per organization: the first failure opens it, later ones update
 * its message (it keeps the time the trouble began). One batch, so two failing runs make one alert.
 */
export function raiseModelAlertStatements(orgId: string, id: string, message: string, now: number): InStatement[] {
  return [
    {
      sql: `UPDATE integration_alerts SET message = ?
             WHERE org_id = ? AND user_id IS NULL AND service = 'model' AND resolved_at IS NULL`,
      args: [message, orgId],
    },
    {
      sql: `INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at)
            SELECT ?, ?, NULL, 'model', 'critical', ?, ?
             WHERE NOT EXISTS (SELECT 1 FROM integration_alerts
                                WHERE org_id = ? AND user_id IS NULL AND service = 'model' AND resolved_at IS NULL)`,
      args: [id, orgId, message, now, orgId],
    },
  ];
}

export function resolveModelAlertStatement(orgId: string, now: number): InStatement {
  return {
    sql: `UPDATE integration_alerts SET resolved_at = ?
           WHERE org_id = ? AND user_id IS NULL AND service = 'model' AND severity = 'critical' AND resolved_at IS NULL`,
    args: [now, orgId],
  };
}

/** Budget warnings of earlier days are over: a new day has a new budget. */
export function resolveOldBudgetWarningsStatement(orgId: string, dayStart: number, now: number) {
  return {
    sql: `UPDATE integration_alerts SET resolved_at = ?
           WHERE org_id = ? AND service = 'model' AND severity = 'warning' AND resolved_at IS NULL AND flagged_at < ?`,
    args: [now, orgId, dayStart],
  };
}
