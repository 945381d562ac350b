/** Data for web page tests: agent runs as the scheduler would have stored them, hours before the test clock's now. */
import { AGENTS } from "../../src/domain.ts";
import { HOUR } from "../../src/lib/clock.ts";
import type { TestServer } from "./server.ts";

export interface PastRun {
  /** Index into the agent catalog. */
  agent: number;
  status: "ok" | "error";
  hoursAgo: number;
  summary: string;
}

export async function insertPastRuns(s: TestServer, runs: PastRun[], idPrefix = "run_test"): Promise<void> {
  const now = s.clock.now();
  for (const [i, run] of runs.entries()) {
    const finished = now - run.hoursAgo * HOUR;
    await s.db.execute({
      sql: `INSERT INTO agent_runs (id, org_id, agent_id, status, summary, error, has_data, started_at, finished_at)
            VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)`,
      args: [
        `${idPrefix}${i}`,
        s.org.id,
        AGENTS[run.agent]!.id,
        run.status,
        run.summary,
        run.status === "error" ? run.summary : null,
        finished - 60_000,
        finished,
      ],
    });
  }
}

export async function insertAlert(s: TestServer, id: string, message: string, hoursAgo: number): Promise<void> {
  await s.db.execute({
    sql: "INSERT INTO integration_alerts (id, org_id, user_id, service, severity, message, flagged_at) VALUES (?, ?, NULL, ?, ?, ?, ?)",
    args: [id, s.org.id, "calendar", "critical", message, s.clock.now() - hoursAgo * HOUR],
  });
}
