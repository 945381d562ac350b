/**
 * Regeneration after writes that must surface (src/docs/notes/agents-runtime.md): a new action, a critical or high handoff,
 * a high-impact insight makes the standup (mode by local time) and the briefings of every user of
 * the organization be composed again within seconds. It listens to the in-process domain events,
 * so it runs in the process that took the write (every server process runs one); a debounce turns
 * a burst of writes into one regeneration: the first event starts the wait, later ones join it.
 *
 * A critical handoff also starts the destination agent's run at once when that agent has a
 * built-in runner, or is model-backed and has its model and sources (src/docs/notes/agents-runtime.md). Otherwise it runs
 * elsewhere (an external runner through the run API), and the handoff waits, queued
 * critical-first, for its next run.
 */

import type { Events } from "../lib/events.ts";
import { startLoop } from "../lib/loop.ts";
import type { ModelRunDeps } from "./model-run.ts";
import { runAgent, runnerOf } from "./run-agent.ts";
import type { RunDeps } from "./runners.ts";

export const REGENERATE_DEBOUNCE_MS = 1_000;

export interface Regenerator {
  /** Runs every pending regeneration now; resolves when it is stored (tests call it instead of waiting). */
  flush(): Promise<void>;
  /** Organizations waiting for a regeneration. */
  pending(): number;
  stop(): Promise<void>;
}

interface Pending {
  surface: boolean;
  /** Agents with a built-in runner that a critical handoff asked to run. */
  agents: Set<string>;
}

export function createRegenerator(
  deps: RunDeps & { events: Events } & Partial<Pick<ModelRunDeps, "config" | "outbound" | "sources">>,
  options: { debounceMs?: number; timers?: boolean } = {},
): Regenerator {
  const debounceMs = options.debounceMs ?? REGENERATE_DEBOUNCE_MS;
  const timers = options.timers ?? true;
  const pending = new Map<string, Pending>();
  // One flush at a time, in order: a flush called during another waits for it, then takes what arrived since.
  const loop = startLoop(
    async () => {
      const work = [...pending.entries()];
      pending.clear();
      for (const [orgId, entry] of work) {
        try {
          await regenerate(orgId, entry);
        } catch (error) {
          deps.log.error("regeneration failed", { org: orgId, error: String(error) });
        }
      }
    },
    { onError: (error) => deps.log.error("regeneration failed", { error: String(error) }) },
  );

  const mark = (orgId: string, change: { surface?: boolean; agent?: string }) => {
    const entry = pending.get(orgId) ?? { surface: false, agents: new Set<string>() };
    if (change.surface) entry.surface = true;
    if (change.agent) entry.agents.add(change.agent);
    pending.set(orgId, entry);
    if (timers) loop.runAfter(debounceMs);
  };

  const runsHere = (agentId: string) => runnerOf(agentId) === "built-in" || (runnerOf(agentId) === "model" && deps.config !== undefined);

  const unsubscribe = deps.events.on((event) => {
    switch (event.type) {
      case "action.created":
        mark(event.orgId, { surface: true });
        break;
      case "handoff.created":
        if (event.priority === "critical" || event.priority === "high") mark(event.orgId, { surface: true });
        // standup and briefing run with the surfacing anyway, claiming the handoff.
        if (event.priority === "critical" && runsHere(event.to) && event.to !== "standup" && event.to !== "briefing") {
          mark(event.orgId, { agent: event.to });
        }
        break;
      case "insight.created":
        if (event.impact === "high") mark(event.orgId, { surface: true });
        break;
    }
  });

  async function regenerate(orgId: string, work: Pending): Promise<void> {
    for (const agentId of work.agents) await runAgent(deps, orgId, agentId, { kind: "regenerate" });
    if (work.surface) {
      await runAgent(deps, orgId, "standup", { kind: "regenerate" });
      await runAgent(deps, orgId, "briefing", { kind: "regenerate" });
    }
  }

  return {
    flush: loop.run,
    pending: () => pending.size,
    async stop() {
      unsubscribe();
      await loop.stop();
    },
  };
}
