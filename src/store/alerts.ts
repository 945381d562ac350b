import type { Db } from "./db.ts";

export interface IntegrationAlert {
  service: string;
  severity: "critical" | "warning";
  message: string;
  flaggedAt: number;
}

/** Open alerts of the organization and of this user, critical first, then newest. */
export async function listOpenAlerts(db: Db, orgId: string, userId: string | null): Promise<IntegrationAlert[]> {
  const rows = await db.all<{ service: string; severity: "critical" | "warning"; message: string; flagged_at: number }>(
    `SELECT service, severity, message, flagged_at FROM integration_alerts
      WHERE org_id = ? AND resolved_at IS NULL AND (user_id IS NULL OR user_id = ?)
      ORDER BY severity = 'critical' DESC, flagged_at DESC, id DESC`,
    [orgId, userId],
  );
  return rows.map((r) => ({ service: r.service, severity: r.severity, message: r.message, flaggedAt: r.flagged_at }));
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
    sql: "INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    args: [a.id, a.orgId, a.userId ?? null, a.service, a.severity, a.message, a.flaggedAt],
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

/** Open critical alerts of the whole organization (every user's too), newest first, with the agent that raised each. */
export async function listOpenCriticalAlerts(
  db: Db,
  orgId: string,
): Promise<{ service: string; message: string; flaggedAt: number; agent: string | null }[]> {
  const rows = await db.all<{ service: string; message: string; flagged_at: number; agent_id: string | null }>(
    `SELECT a.service, a.message, a.flagged_at, s.agent_id FROM integration_alerts a
       LEFT JOIN alert_sources s ON s.alert_id = a.id
      WHERE a.org_id = ? AND a.resolved_at IS NULL AND a.severity = 'critical'
      ORDER BY a.flagged_at DESC, a.id DESC`,
    [orgId],
  );
  return rows.map((r) => ({ service: r.service, message: r.message, flaggedAt: r.flagged_at, agent: r.agent_id }));
}
