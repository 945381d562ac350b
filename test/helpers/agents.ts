/**
 * Helpers for the agents-runtime tests (test/agents/): a server with an admin client, a regenerator
 * without timers (tests flush it), a scheduler per "process", and small readers of stored rows.
 */
import { createRegenerator, type Regenerator } from "../../src/agents/regenerate.ts";
import { createScheduler, type Scheduler } from "../../src/agents/scheduler.ts";
import type { Db } from "../../src/store/db.ts";
import { client } from "./rest.ts";
import { type api, startServer, type TestServer } from "./server.ts";

export interface AgentsFixture {
  s: TestServer;
  /** An operator's admin key. */
  call: ReturnType<typeof api>;
  userId: string;
  regenerator: Regenerator;
  scheduler: Scheduler;
  close(): Promise<void>;
}

export async function agentsServer(timeZone?: string): Promise<AgentsFixture> {
  const s = await startServer();
  if (timeZone) await setTimeZone(s.db, s.org.id, timeZone);
  const { user, call } = await client(s, "operator", ["admin"]);
  const regenerator = createRegenerator(s.deps, { timers: false });
  const scheduler = createScheduler(s.deps, { holder: "test-scheduler" });
  return {
    s,
    call,
    userId: user.id,
    regenerator,
    scheduler,
    async close() {
      await regenerator.stop();
      await scheduler.stop();
      await s.close();
    },
  };
}

export async function setTimeZone(db: Db, orgId: string, timeZone: string): Promise<void> {
  await db.execute({ sql: "UPDATE organizations SET time_zone = ? WHERE id = ?", args: [timeZone, orgId] });
}

export async function rows<T = Record<string, unknown>>(db: Db, sql: string, args: (string | number | null)[] = []): Promise<T[]> {
  return (await db.execute({ sql, args })).rows.map((r) => ({ ...r }) as T);
}

export async function countRows(db: Db, table: string, where = "1 = 1", args: (string | number)[] = []): Promise<number> {
  return Number((await rows<{ n: number }>(db, `SELECT count(*) AS n FROM ${table} WHERE ${where}`, args))[0]?.n);
}

/** Runs of one agent, oldest first. */
export async function runsOf(db: Db, agentId: string) {
  return rows<{ id: string; status: string; summary: string | null; started_at: number; finished_at: number | null }>(
    db,
    "SELECT id, status, summary, started_at, finished_at FROM agent_runs WHERE agent_id = ? ORDER BY started_at, id",
    [agentId],
  );
}

/** Starts a run over the API and returns its reply. */
export async function startRun(call: ReturnType<typeof api>, agent: string) {
  const res = await call(`/api/agents/${agent}/runs`, { method: "POST" });
  if (res.status !== 200) throw new Error(`start ${agent}: ${res.status} ${res.text}`);
  return res.json as { runId: string; context: { handoffs: any[]; insights: any[] } };
}

export const complete = (call: ReturnType<typeof api>, agent: string, runId: string, body: Record<string, unknown>) =>
  call(`/api/agents/${agent}/runs/${runId}/complete`, { body });
