/**
 * `crew agents run <agent>|--due` (src/docs/notes/cli.md): the agents runtime from the command line, on the
 * default organization. Model-backed agents (src/docs/notes/model.md) run with the connected model.
 */

import { jobOf } from "../agents/jobs.ts";
import { runAgent } from "../agents/run-agent.ts";
import { BUILT_IN_RUNNERS } from "../agents/runners.ts";
import { createScheduler, newHolder } from "../agents/scheduler.ts";
import type { Config } from "../config.ts";
import { isAgentId } from "../domain.ts";
import { iso, systemClock } from "../lib/clock.ts";
import { createEvents } from "../lib/events.ts";
import { createLogger } from "../lib/log.ts";
import type { Db } from "../store/db.ts";
import type { Organization } from "../store/orgs/orgs.ts";
import { type CliIo, CommandError, type Env, type Flags, printJson, UsageError, withStore } from "./support.ts";

interface Outcome {
  result: unknown;
  text: string;
  failed: boolean;
}

/** src/cli/index.ts has already checked that exactly one of the agent and --due is given. */
export async function runAgentsFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const agent = typeof flags.agent === "string" ? flags.agent : null;
  const outcome = await withStore(env, (db, org, config) => runAgents({ db, org, config }, agent), flags.org);
  if (flags.json) printJson(io, outcome.result);
  else io.out(outcome.text);
  return outcome.failed ? 1 : 0;
}

/** `crew agents resume ID`: an agent paused after failed scheduled runs is scheduled again (the resumeAgent operation). */
export async function resumeAgentFromCli(agent: string, flags: Flags, env: Env, io: CliIo): Promise<number> {
  if (!isAgentId(agent)) throw new UsageError(`unknown agent "${agent}"`);
  const { resumed } = await withStore(
    env,
    async (db, org, config) => {
      const [{ runAsCli }, { resumeAgentOp }] = await Promise.all([import("./principal.ts"), import("../operations/agent-pause.ts")]);
      return runAsCli({ db, config }, org.id, resumeAgentOp, { id: agent }, { flags: { id: "<agent>" } });
    },
    flags.org,
  );
  io.out(resumed ? `${agent}: resumed; it runs again from its next scheduled slot.\n` : `${agent} was not paused.\n`);
  return 0;
}

async function runAgents(ctx: { db: Db; org: Organization; config: Config }, agent: string | null): Promise<Outcome> {
  const log = createLogger(ctx.config.logLevel);
  const deps = { db: ctx.db, clock: systemClock, log, config: ctx.config, events: createEvents() };
  if (agent !== null) {
    if (!isAgentId(agent)) throw new UsageError(`unknown agent "${agent}"; agents with a built-in runner: ${BUILT_IN_RUNNERS.join(", ")}`);
    const run = await runAgent(deps, ctx.org.id, agent, { kind: "cli" });
    if (run === null) {
      // Said as what to do: "no built-in runner" read as if the agent were broken or needed a model.
      throw new CommandError(
        `${agent} is run by a program of yours, not by Crew (${jobOf(agent).job.replace(/\.$/, "")}): that program reports through the run API, POST /api/agents/${agent}/runs (see /docs/notes/agents-runtime). Crew runs the others itself: ${BUILT_IN_RUNNERS.join(", ")} always, the model-backed agents once a model is connected.`,
      );
    }
    if (run.runId === null) throw new CommandError(`agent ${agent} did not run: ${run.summary}`);
    const tokens = "tokensIn" in run && run.tokensIn + run.tokensOut > 0 ? ` [${run.tokensIn} tokens in, ${run.tokensOut} out]` : "";
    return { result: run, text: `${run.agentId}: ${run.status} (${run.runId}): ${run.summary}${tokens}\n`, failed: run.status === "error" };
  }
  const scheduler = createScheduler(deps, { holder: newHolder("cli") });
  try {
    const report = await scheduler.tick();
    const result = { at: iso(deps.clock.now()), ...report };
    if (!report.leader) {
      return { result, text: "Another process (a server on this database) leads the scheduler; it runs what is due.\n", failed: false };
    }
    const lines = report.ran.map((r) => `${r.agentId}: ${r.status} (${r.runId}): ${r.summary}`);
    if (lines.length === 0) lines.push("Nothing is due.");
    if (report.closed > 0) lines.push(`Closed ${report.closed} run${report.closed === 1 ? "" : "s"} left open for over an hour.`);
    return { result, text: `${lines.join("\n")}\n`, failed: report.ran.some((r) => r.status === "error") };
  } finally {
    await scheduler.stop();
  }
}
