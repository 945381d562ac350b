/**
 * The scheduler (src/docs/notes/agents-runtime.md). One leader across all processes sharing the database, by a lease row
 * taken and renewed with one atomic upsert; only the leader runs due agents and closes abandoned
 * runs. On top of the lease, each schedule slot is claimed atomically (store/runs/runs.ts claimSlot),
 * so even two leaders in a lease hand-over could not run one slot twice.
 *
 * Due: the latest slot of the agent's schedule (in the organization's time zone) at or before now
 * has not been claimed yet and no run of the agent started at or after it (a run made for another
 * reason — a regeneration, `crew agents run`, an external runner — covers the slot). After
 * downtime only the latest missed slot can be due, and only when it was missed within the last
 * hour (CATCH_UP_WINDOW_MS): a server down for a day does not run every agent at start; the next
 * slot runs as usual. An agent that never ran has its latest slot due whatever its age, so a fresh
 * organization gets content on the first pass (src/docs/notes/agents-runtime.md).
 *
 * A paused agent (src/agents/auto-pause.ts: three scheduled runs in a row failed) is not due.
 *
 * Model-backed agents (src/docs/notes/model.md) are due the same way, but only while their organization has a
 * model and the sources they read: until then their slots are not even claimed. Their runs go
 * out together after the built-ins (the model client lets two calls through at a time).
 */
import { HOUR } from "../lib/clock.ts";
import { type Loop, startLoop } from "../lib/loop.ts";
import type { Metrics } from "../lib/metrics.ts";
import { randomSecret } from "../lib/random.ts";
import { releaseLease, takeLease } from "../store/leases/leases.ts";
import { listScheduledAgents } from "../store/runs/agents.ts";
import { claimSlot, closeAbandonedRuns, latestRunStart } from "../store/runs/runs.ts";
import type { ModelRunDeps } from "./model-run.ts";
import { type AgentRun, runAgent, runnerOf } from "./run-agent.ts";
import type { RunDeps } from "./runners.ts";
import { latestSlot } from "./schedule.ts";

export const LEASE_NAME = "agents-scheduler";
/** How long a leader holds the lease without renewing it: a crashed leader is replaced after this. */
export const LEASE_TTL_MS = 60_000;
export const TICK_INTERVAL_MS = 15_000;
/** A run left open longer than this is closed as an error (src/docs/notes/agents-runtime.md). */
export const RUN_TIMEOUT_MS = HOUR;
/** A missed slot older than this is not caught up (the agent has run before): the next slot runs normally. */
export const CATCH_UP_WINDOW_MS = HOUR;

export interface SchedulerPassReport {
  /** Whether this pass held the lease (a follower does nothing else). */
  leader: boolean;
  /** Runs left open over an hour that this pass closed. */
  closed: number;
  ran: AgentRun[];
}

export const newHolder = (label = "process") => `${label}-${randomSecret(10)}`;

/** Without a configuration and events (a bare store), model-backed agents are not run. */
export type SchedulerDeps = RunDeps &
  Partial<Pick<ModelRunDeps, "events" | "outbound" | "sources">> & { metrics?: Pick<Metrics, "schedulerLeader"> };

/** One pass: take or renew the lease, close abandoned runs, run every due built-in agent once. */
export async function tick(deps: SchedulerDeps, holder: string): Promise<SchedulerPassReport> {
  const modelDeps = deps.config && deps.events;
  const now = deps.clock.now();
  const leading = await takeLease(deps.db, LEASE_NAME, holder, now, now + LEASE_TTL_MS);
  deps.metrics?.schedulerLeader(leading);
  if (!leading) return { leader: false, closed: 0, ran: [] };
  const closed = await closeAbandonedRuns(
    deps.db,
    now - RUN_TIMEOUT_MS,
    now,
    "The run was not completed within 1 hour; closed by the scheduler.",
  );
  const ran: AgentRun[] = [];
  const modelRuns: Promise<AgentRun | null>[] = [];
  for (const agent of await listScheduledAgents(deps.db)) {
    const runner = runnerOf(agent.agentId);
    // External agents run only through the run API; model-backed ones only with a configuration (src/docs/notes/agents-runtime.md).
    if (runner === "external" || (runner === "model" && !modelDeps)) continue;
    const slot = latestSlot(agent.schedule, agent.timeZone, now);
    if (slot === null) continue;
    const lastStart = await latestRunStart(deps.db, agent.orgId, agent.agentId);
    if (lastStart !== null && lastStart >= slot) continue;
    if (lastStart !== null && slot < now - CATCH_UP_WINDOW_MS) continue;
    let claimed = false;
    const claim = async () => {
      claimed = await claimSlot(deps.db, agent.orgId, agent.agentId, slot, now);
      return claimed;
    };
    // A slot not claimed (the agent lacks its model or a source, or another process has it) is no run of this pass.
    const run = runAgent(deps, agent.orgId, agent.agentId, { kind: "schedule", slot, claim }).then((r) => (claimed ? r : null));
    if (runner === "model") modelRuns.push(run);
    else {
      const done = await run;
      if (done) ran.push(done);
    }
  }
  for (const run of await Promise.all(modelRuns)) if (run) ran.push(run);
  if (closed > 0 || ran.length > 0) deps.log.info("scheduler pass", { closed, ran: ran.map((r) => `${r.agentId}:${r.status}`).join(",") });
  return { leader: true, closed, ran };
}

export interface Scheduler {
  holder: string;
  tick(): Promise<SchedulerPassReport>;
  /** Ticks now and then every `intervalMs`; passes never overlap. */
  start(): void;
  /** Stops ticking, waits for a pass in progress, and hands the lease back so another process leads at once. */
  stop(): Promise<void>;
}

export function createScheduler(deps: SchedulerDeps, options: { holder?: string; intervalMs?: number } = {}): Scheduler {
  const holder = options.holder ?? newHolder();
  let loop: Loop | null = null;
  return {
    holder,
    tick: () => tick(deps, holder),
    start() {
      if (loop) return;
      loop = startLoop(
        async () => {
          await tick(deps, holder);
        },
        {
          intervalMs: options.intervalMs ?? TICK_INTERVAL_MS,
          overlap: "skip",
          unref: true,
          onError: (error) => deps.log.error("scheduler pass failed", { error: String(error) }),
        },
      );
      void loop.run();
    },
    async stop() {
      await loop?.stop();
      loop = null;
      await releaseLease(deps.db, LEASE_NAME, holder).catch(() => {});
      deps.metrics?.schedulerLeader(false);
    },
  };
}
