import { all, type Db } from "./db.ts";

export interface IntegrationAlert {
  service: string;
  severity: "critical" | "warning";
  message: string;
  flaggedAt: number;
}

/** Open alerts of the organization and of this user, critical first, then newest. */
export async function listOpenAlerts(db: Db, orgId: string, userId: string | null): Promise<IntegrationAlert[]> {
  const rows = await all<{ service: string; severity: "critical" | "warning"; message: string; flagged_at: number }>(
    db,
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
