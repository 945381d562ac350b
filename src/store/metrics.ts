/**
 * The database's figures for GET /metrics (src/lib/metrics.ts): finished runs by agent and
 * status, model tokens spent, outbox rows waiting. Counts over all organizations: no label names one.
 */
import type { Db } from "./db.ts";

export interface StoreFigures {
  runs: { agent: string; status: string; count: number }[];
  tokens: { input: number; output: number };
  outbox: { kind: string; pending: number }[];
}

export async function storeFigures(db: Db): Promise<StoreFigures> {
  const [runs, tokens, webhooks] = await Promise.all([
    db.all<{ agent_id: string; status: string; n: number }>(
      "SELECT agent_id, status, count(*) AS n FROM agent_runs WHERE status != 'running' GROUP BY agent_id, status",
      [],
    ),
    db.one<{ input: number | null; output: number | null }>("SELECT sum(tokens_in) AS input, sum(tokens_out) AS output FROM run_usage", []),
    db.one<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'delivering')", []),
  ]);
  return {
    runs: runs.map((r) => ({ agent: r.agent_id, status: r.status, count: Number(r.n) })),
    tokens: { input: Number(tokens?.input ?? 0), output: Number(tokens?.output ?? 0) },
    outbox: [{ kind: "webhook", pending: Number(webhooks?.n ?? 0) }],
  };
}
