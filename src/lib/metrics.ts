/**
 * The process's Prometheus metrics (prom-client), served at GET /metrics when METRICS_TOKEN is set
 * (src/docs/notes/metrics.md). Labels are closed sets — route patterns, agent ids, statuses —
 * never a user id, email, token or raw path. What several processes share (runs, tokens spent,
 * outboxes) is read from the database at scrape time, so every process reports the same totals;
 * what happens in this process (requests, deliveries, quota refusals, leadership) is counted here.
 */
import client from "prom-client";

/** Read from the database when scraped (src/store/metrics.ts). */
export interface StoreSnapshot {
  runs: { agent: string; status: string; runner: string; count: number }[];
  tokens: { input: number; output: number };
  outbox: { kind: string; pending: number }[];
}

export interface Metrics {
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  webhookDelivery(result: "delivered" | "retrying" | "failed"): void;
  quotaRefused(): void;
  schedulerLeader(leading: boolean): void;
  /** The text exposition, with the store's figures filled in. */
  render(snapshot: StoreSnapshot): Promise<{ contentType: string; body: string }>;
}

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new client.Counter({
    name: "crew_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const duration = new client.Histogram({
    name: "crew_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method and route pattern.",
    labelNames: ["method", "route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const runs = new client.Counter({
    name: "crew_agent_runs_total",
    help: "Finished agent runs kept in the database (retention applies), by agent, status and runner.",
    labelNames: ["agent", "status", "runner"] as const,
    registers,
  });
  const tokens = new client.Counter({
    name: "crew_model_tokens_total",
    help: "Model tokens spent by runs kept in the database, by direction (input, output).",
    labelNames: ["direction"] as const,
    registers,
  });
  const deliveries = new client.Counter({
    name: "crew_webhook_deliveries_total",
    help: "Webhook delivery attempts made by this process, by result.",
    labelNames: ["result"] as const,
    registers,
  });
  const outbox = new client.Gauge({
    name: "crew_outbox_pending",
    help: "Outbox rows waiting to be sent, by kind.",
    labelNames: ["kind"] as const,
    registers,
  });
  const refusals = new client.Counter({
    name: "crew_quota_refusals_total",
    help: "Requests refused by the hourly request quota (429) in this process.",
    registers,
  });
  const leader = new client.Gauge({
    name: "crew_scheduler_leader",
    help: "1 while this process leads the agents scheduler, else 0.",
    registers,
  });
  leader.set(0);
  for (const direction of ["input", "output"]) tokens.inc({ direction }, 0);
  for (const result of ["delivered", "retrying", "failed"]) deliveries.inc({ result }, 0);

  return {
    httpRequest(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
    webhookDelivery: (result) => deliveries.inc({ result }),
    quotaRefused: () => refusals.inc(),
    schedulerLeader: (leading) => leader.set(leading ? 1 : 0),
    async render(snapshot) {
      // Totals of the shared database replace the previous scrape's, so every process agrees.
      runs.reset();
      for (const r of snapshot.runs) runs.inc({ agent: r.agent, status: r.status, runner: r.runner }, r.count);
      tokens.reset();
      tokens.inc({ direction: "input" }, snapshot.tokens.input);
      tokens.inc({ direction: "output" }, snapshot.tokens.output);
      outbox.reset();
      for (const o of snapshot.outbox) outbox.set({ kind: o.kind }, o.pending);
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
