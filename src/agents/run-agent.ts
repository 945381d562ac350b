/**
 * The one decision "run this agent now": the scheduler, the regenerator, "Run now" (the agent's
 * page and `crew_run_agent`) and `crew agents run` all call `runAgent`. How an agent runs comes
 * from one place, its catalog entry (src/agents/jobs.ts `runner`):
 *
 * - `built-in`: composed from stored data (standup, briefing, pulse, dna);
 * - `model`: run with the organization's connected model; while the model or a source it reads is
 *   missing nothing is started, and the answer is a `skipped` run without an id saying what is missing;
 * - `external`: not run by Crew (a program of the owner's reports through the run API): `null`.
 *
 * What differs by reason is stated here too: scheduled and command-line runs let a connected model
 * write the words and deliver the briefing and standup; a scheduled slot is claimed only once the
 * agent can run, and its outcome counts towards the auto-pause; a successful "Run now" resumes a
 * paused agent (src/agents/auto-pause.ts).
 */

import type { Events } from "../lib/events.ts";
import { inSpan, tracingEnabled } from "../lib/tracing.ts";
import { getOrg } from "../store/orgs/orgs.ts";
import { countScheduledRun, resumeAgent } from "./auto-pause.ts";
import { standupModeAt } from "./compose-standup.ts";
import { jobOf, type Runner } from "./jobs.ts";
import type { TriggerEvent } from "./model-inputs.ts";
import { type ModelRun, type ModelRunDeps, NEEDS_MODEL, type RunStart, runModelAgent } from "./model-run.ts";
import { type BuiltInRun, type RunDeps, runBuiltIn } from "./runners.ts";

export type RunReason =
  /** A schedule slot (its local time sets the standup's mode); `claim` takes the slot, false when another process has it. */
  | { kind: "schedule"; slot: number; claim: () => Promise<boolean> }
  | { kind: "regenerate" }
  | { kind: "now" }
  | { kind: "cli" }
  /** New mail in a mailbox of the inbox agent (src/docs/notes/connections.md). */
  | { kind: "mail" }
  /** A payload posted to the agent's trigger; `onStarted` learns the run's id as soon as it has one. */
  | { kind: "event"; event: TriggerEvent; onStarted?: (runId: string) => void };

/** Without a configuration and events (a bare store), model-backed agents cannot run. */
export type AgentRunDeps = RunDeps & { events?: Events } & Partial<Pick<ModelRunDeps, "outbound" | "sources" | "signal">>;

export type AgentRun = BuiltInRun | ModelRun;

/** How Crew runs the agent: the catalog's word, the one source of it. */
export const runnerOf = (agentId: string): Runner => jobOf(agentId).runner;

const modelDepsOf = (deps: AgentRunDeps): ModelRunDeps | null => (deps.config && deps.events ? (deps as ModelRunDeps) : null);

const notRun = (agentId: string, summary: string): ModelRun => ({
  runId: null,
  agentId,
  status: "skipped",
  summary,
  tokensIn: 0,
  tokensOut: 0,
});

/** Runs the agent once for `reason`; null when it is run by an external program, not by Crew. */
export function runAgent(deps: AgentRunDeps, orgId: string, agentId: string, reason: RunReason): Promise<AgentRun | null> {
  if (!tracingEnabled()) return runAgentUntraced(deps, orgId, agentId, reason);
  // A span per run (src/docs/notes/tracing.md): the agent, what started it, and how it ended.
  return inSpan(`agent run ${agentId}`, { "crew.agent": agentId, "crew.run.trigger": reason.kind }, async (span) => {
    const run = await runAgentUntraced(deps, orgId, agentId, reason);
    span?.set({ "crew.run.outcome": run?.status ?? "external", ...(run?.runId ? { "crew.run.id": run.runId } : {}) });
    if (run?.status === "error") span?.fail("run failed");
    return run;
  });
}

async function runAgentUntraced(deps: AgentRunDeps, orgId: string, agentId: string, reason: RunReason): Promise<AgentRun | null> {
  const runner = runnerOf(agentId);
  if (runner === "external") return null;
  const org = await getOrg(deps.db, orgId);
  if (!org) return notRun(agentId, "The organization does not exist.");
  const modelDeps = modelDepsOf(deps);
  if (runner === "model" && !modelDeps) return notRun(agentId, `${NEEDS_MODEL}.`);
  // A model-backed run checks once whether it can run and takes the slot after that check (startOf hands it the claim).
  if (runner !== "model" && reason.kind === "schedule" && !(await reason.claim()))
    return notRun(agentId, "Another process took this slot.");
  const run: AgentRun =
    runner === "model" && modelDeps
      ? await runModelAgent(modelDeps, org, agentId, startOf(reason))
      : await runBuiltIn(deps, org, agentId, builtInOptions(reason, agentId, org.timeZone));
  if (reason.kind === "schedule") await countScheduledRun(deps, orgId, run);
  if (reason.kind === "now" && run.status === "ok") await resumeAgent(deps, orgId, agentId);
  return run;
}

function startOf(reason: RunReason): RunStart {
  if (reason.kind === "schedule") return { claim: reason.claim };
  if (reason.kind === "mail") return { trigger: "mail" };
  if (reason.kind === "event")
    return { trigger: "event", event: reason.event, ...(reason.onStarted ? { onStarted: reason.onStarted } : {}) };
  return {};
}

function builtInOptions(reason: RunReason, agentId: string, timeZone: string) {
  switch (reason.kind) {
    case "schedule":
      // A standup slot's mode is its local time: before 12:00 morning, else evening.
      return { mode: agentId === "standup" ? standupModeAt(reason.slot, timeZone) : undefined, words: true, deliver: true };
    case "cli":
      return { words: true, deliver: true };
    default:
      return {};
  }
}
