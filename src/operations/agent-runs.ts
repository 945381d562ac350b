/**
 * The agent-run API (src/docs/notes/agents-runtime.md): external runners — an LLM script, a cron job, a workflow tool — act
 * as any agent with an admin credential. REST only (no MCP tools): start a run, complete it, read
 * the history, and edit an agent's schedule.
 */
import * as v from "valibot";
import { costUsd } from "../agents/budgets.ts";
import { jobOf } from "../agents/jobs.ts";
import { assertAgent, completeAgentRun, startAgentRun } from "../agents/run-api.ts";
import { nextSlot, scheduleProblem } from "../agents/schedule.ts";
import { readAccess, writeAccess } from "../auth/access.ts";
import { ACTION_TYPES, AGENT_IDS, PIPELINE_STAGES } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { type Clock, iso, isoOrNull } from "../lib/clock.ts";
import type { Db } from "../store/db.ts";
import { getOrg } from "../store/orgs/orgs.ts";
import { agentTriggers, setRunOnNewMail } from "../store/runs/agent-triggers.ts";
import { getAgentRecord, setAgentSchedule } from "../store/runs/agents.ts";
import { agentDailyTokens, setAgentDailyTokens } from "../store/runs/budgets.ts";
import { getInstructionOverride, setInstructionOverride, usageOfRuns } from "../store/runs/model.ts";
import { listRuns } from "../store/runs/runs.ts";
import { NewAction } from "./actions.ts";
import { EvidenceInput, EvidenceList, ProvenanceField } from "./evidence-schema.ts";
import { Insight } from "./listings.ts";
import { defineOperation } from "./registry.ts";
import { Metrics } from "./reports.ts";
import { DailyTokens, DateTime, LongText, maxChars, PageLimit, Priority, ShortText, Title } from "./schemas.ts";
import { contactFields, handoffFields, insightFields } from "./writes.ts";

export const AgentIdParam = v.pipe(v.string(), v.description("The agent's id, one of the 17 (e.g. pulse, sales)."));
const RunIdParam = v.pipe(v.string(), v.description("The run's id (run_…), as returned when it started."));
export const tags = ["Agents runtime"];

const Text = (max: number) => v.pipe(ShortText(max), v.minLength(1, "Must not be empty."));
const list = <T extends v.GenericSchema>(item: T, max: number) =>
  v.pipe(v.array(item, "Must be an array."), v.maxLength(max, `Must hold at most ${max} items.`));
const count = v.pipe(v.number("Must be a number."), v.minValue(0, "Must not be negative."));

const HandoffView = v.object({
  id: v.string(),
  from: v.pipe(v.string(), v.description("The agent that sent it, or manual.")),
  to: v.string(),
  title: v.string(),
  context: v.nullable(v.string()),
  priority: Priority,
  type: v.nullable(v.string()),
  createdAt: DateTime,
  evidence: EvidenceList,
  provenance: ProvenanceField,
});

/** An insight as a run's context carries it, evidence included (like GET of the feed); held ones are never handed over. */
const InsightView = v.omit(Insight, ["held", "heldReason"]);

export const startAgentRunOp = defineOperation({
  id: "startAgentRun",
  role: "owner",
  summary: "Start an agent run",
  description:
    "Starts a run of the agent (status running) and returns its context: the handoffs queued for the agent, now claimed by this run (critical first; two runs never claim the same handoff), and the insights posted to the feed since the agent's previous run started (high impact first). Complete the run within an hour with POST /api/agents/{id}/runs/{runId}/complete, or the scheduler closes it as an error and its unreported handoffs go back to the queue.",
  input: v.strictObject({ id: AgentIdParam }),
  output: v.object({
    runId: v.string(),
    context: v.object({ handoffs: v.array(HandoffView), insights: v.array(InsightView) }),
  }),
  rest: { method: "POST", path: "/api/agents/{id}/runs", access: writeAccess(), from: "none", tags },
  handler: async (ctx, input) => {
    const started = await startAgentRun(ctx.db, ctx.clock, ctx.principal.orgId, input.id);
    return {
      runId: started.runId,
      context: {
        handoffs: started.handoffs.map((h) => ({ ...h, createdAt: iso(h.createdAt) })),
        insights: started.insights.map((i) => ({ ...i, createdAt: iso(i.createdAt) })),
      },
    };
  },
});

const RunAction = v.strictObject({
  ...NewAction.entries,
  evidence: v.optional(EvidenceInput),
  type: v.optional(
    v.pipe(
      v.picklist(ACTION_TYPES, `Must be one of ${ACTION_TYPES.join(", ")}.`),
      v.description("approval: the agent asks a person to approve something."),
    ),
    "task",
  ),
});

const Profile = v.strictObject({
  archetype: v.optional(Title),
  strengths: v.optional(list(Text(500), 50)),
  weaknesses: v.optional(list(Text(500), 50)),
  patterns: v.optional(list(v.strictObject({ name: Title, insight: v.pipe(LongText, v.minLength(1, "Must not be empty.")) }), 50)),
  pipeline: v.optional(
    list(
      v.strictObject({
        company: Title,
        stage: v.picklist(PIPELINE_STAGES, `Must be one of ${PIPELINE_STAGES.join(", ")}.`),
        value: v.pipe(count, v.description("Deal value in dollars.")),
      }),
      500,
    ),
  ),
});

export const completeAgentRunOp = defineOperation({
  id: "completeAgentRun",
  role: "owner",
  summary: "Complete an agent run",
  description:
    "Completes a running run with its outcome and stores everything it reports in one transaction (a bad item is a 400 and nothing is stored): suggestions (replacing the agent's open ones), metrics (pulse's DAU, WAU, MRR feed the standup), a company profile (fields sent replace the last profile's; others are kept), actions for the queue (source = the agent; type approval asks a person to approve), integration alerts (open until a later successful run of this agent resolves them), and the outcome of the handoffs this run claimed (those not reported go back to the queue). Health, standup, briefing, suggestions, profile and alerts derive from these runs. A run completes once: again → 409.",
  input: v.strictObject({
    id: AgentIdParam,
    runId: RunIdParam,
    status: v.picklist(["ok", "error"], "Must be one of ok, error."),
    summary: v.pipe(LongText, v.trim(), v.minLength(1, "Must not be empty."), v.description("One line shown on the dashboard.")),
    error: v.optional(v.pipe(LongText, v.description("What failed, for status error."))),
    output: v.optional(v.pipe(v.unknown(), v.description("Any JSON the runner wants kept with the run."))),
    suggestions: v.optional(
      list(
        v.strictObject({
          title: Title,
          detail: v.optional(LongText, ""),
          priority: v.optional(Priority, "medium"),
          evidence: v.optional(EvidenceInput),
        }),
        100,
      ),
    ),
    metrics: v.optional(v.strictObject({ dau: count, wau: count, mrr: count })),
    profile: v.optional(Profile),
    actions: v.optional(list(RunAction, 100)),
    alerts: v.optional(
      list(
        v.strictObject({
          service: v.pipe(Text(50), v.description("The integration, e.g. google, slack, calendar.")),
          severity: v.picklist(["critical", "warning"], "Must be one of critical, warning."),
          message: v.pipe(LongText, v.minLength(1, "Must not be empty."), v.description("What is wrong and how to fix it.")),
        }),
        20,
      ),
    ),
    handoffs: v.optional(
      list(
        v.strictObject({
          id: v.pipe(v.string("Must be a string."), v.description("A handoff this run claimed (hof_…).")),
          status: v.picklist(["done", "failed"], "Must be one of done, failed."),
        }),
        100,
      ),
    ),
    insights: v.optional(
      v.pipe(
        list(v.strictObject({ ...insightFields, evidence: v.optional(EvidenceInput) }), 50),
        v.description("Insights posted to the feed, from this agent."),
      ),
    ),
    newHandoffs: v.optional(
      v.pipe(
        list(v.strictObject({ ...handoffFields, evidence: v.optional(EvidenceInput) }), 50),
        v.description("Work handed to other agents, from this agent (queued for their next run)."),
      ),
    ),
    contacts: v.optional(
      v.pipe(
        list(v.strictObject(contactFields), 100),
        v.description("Contacts created or updated, matched by email or name as POST /api/mcp/contacts."),
      ),
    ),
  }),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "POST", path: "/api/agents/{id}/runs/{runId}/complete", access: writeAccess(), from: "body", tags, errors: [409] },
  handler: async (ctx, input) => {
    const { id, runId, ...completion } = input;
    const outcome = await completeAgentRun(ctx, ctx.principal.orgId, id, runId, completion);
    if (!outcome.ok) {
      const issues = outcome.unknownReferences;
      throw new ApiError(400, "invalid_request", `Unknown references: ${issues.map((i) => i.path).join(", ")}.`, { issues });
    }
    return { ok: true as const };
  },
});

const RunView = v.object({
  id: v.string(),
  agent: v.string(),
  status: v.picklist(["running", "ok", "error"]),
  summary: v.nullable(v.string()),
  error: v.nullable(v.string()),
  output: v.pipe(v.unknown(), v.description("What the runner stored with the run, or null.")),
  metrics: v.nullable(Metrics),
  hasData: v.boolean(),
  startedAt: DateTime,
  finishedAt: v.pipe(v.nullable(DateTime), v.description("null while running.")),
  trigger: v.pipe(
    v.nullable(v.picklist(["mail", "event"])),
    v.description(
      "What started the run besides its schedule or a person: mail (new mail arrived), event (POST /api/agents/{id}/trigger); else null.",
    ),
  ),
  tokensIn: v.pipe(
    v.nullable(v.number()),
    v.description("Tokens sent to the model by a model-backed run (src/docs/notes/model.md); null for other runs."),
  ),
  tokensOut: v.pipe(v.nullable(v.number()), v.description("Tokens the model answered with; null for runs without a model call.")),
  costUsd: v.pipe(
    v.nullable(v.number()),
    v.description("Estimated cost in US dollars from CREW_MODEL_PRICE_INPUT/_OUTPUT; null without prices or without a model call."),
  ),
});

export const listAgentRunsOp = defineOperation({
  id: "listAgentRuns",
  summary: "Agent run history",
  description: "The agent's runs, newest first: built-in ones (scheduled or regenerated) and those of external runners alike.",
  input: v.strictObject({
    id: AgentIdParam,
    limit: PageLimit(20),
  }),
  output: v.object({ runs: v.array(RunView) }),
  rest: { method: "GET", path: "/api/agents/{id}/runs", access: writeAccess("read"), from: "query", tags },
  // Read-tier as a resource, like the read tools (src/docs/notes/access.md#scopes); REST keeps the run API's admin requirement.
  resource: {
    uri: "crew://agents/{id}/runs",
    name: "agent-runs",
    title: "An agent's run history",
    access: readAccess(),
    values: { id: AGENT_IDS },
  },
  handler: async (ctx, input) => {
    assertAgent(input.id);
    const runs = await listRuns(ctx.db, ctx.principal.orgId, input.id, input.limit);
    const usage = await usageOfRuns(
      ctx.db,
      runs.map((r) => r.id),
    );
    return {
      runs: runs.map((r) => ({
        id: r.id,
        agent: r.agentId,
        status: r.status,
        summary: r.summary,
        error: r.error,
        output: r.output ?? null,
        metrics: r.metrics,
        hasData: r.hasData,
        startedAt: iso(r.startedAt),
        finishedAt: isoOrNull(r.finishedAt),
        trigger: r.trigger === "mail" || r.trigger === "event" ? (r.trigger as "mail" | "event") : null,
        tokensIn: usage.get(r.id)?.tokensIn ?? null,
        tokensOut: usage.get(r.id)?.tokensOut ?? null,
        costUsd: usage.has(r.id) ? costUsd(ctx.config.modelPrices, usage.get(r.id)!) : null,
      })),
    };
  },
});

const Schedule = v.pipe(
  v.string("Must be a cron expression or null."),
  v.trim(),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? scheduleProblem(dataset.value) : null;
    if (problem)
      addIssue({ message: `Must be a five-field cron expression (minute hour day month weekday), e.g. "0 8 * * 1-5": ${problem}` });
  }),
);

const Instructions = v.pipe(
  v.string("Must be a string or null."),
  v.trim(),
  v.minLength(1, "Must not be empty: send null to go back to the default instructions."),
  maxChars(20_000, "Must be at most 20000 characters."),
);

/** An agent as GET and PATCH /api/agents/{id} return it. */
export const AgentView = v.object({
  id: v.string(),
  name: v.string(),
  schedule: v.nullable(v.string()),
  timeZone: v.pipe(v.string(), v.description("The organization's time zone the schedule is read in.")),
  runner: v.pipe(
    v.picklist(["built-in", "model", "external"]),
    v.description(
      "built-in: composed from data by the scheduler; model: run with the connected model; external: a runner acts through this API.",
    ),
  ),
  instructions: v.pipe(v.string(), v.description("The instructions in effect (the system prompt of its model-backed runs).")),
  customInstructions: v.pipe(v.boolean(), v.description("Whether the organization replaced the default instructions.")),
  nextRunAt: v.pipe(v.nullable(DateTime), v.description("The next slot of the schedule; null without one.")),
  dailyTokens: v.pipe(
    v.nullable(v.number()),
    v.description("The agent's own daily token cap; null: only the organization's budget applies."),
  ),
  runOnNewMail: v.pipe(
    v.boolean(),
    v.description("inbox: whether new mail starts a run within 2 minutes (at most one per 5 minutes per mailbox). Other agents: unused."),
  ),
  triggerSecret: v.pipe(v.boolean(), v.description("Whether the agent has a trigger secret for signed events (never shown again).")),
  pausedReason: v.pipe(
    v.nullable(v.string()),
    v.description(
      "Why it is paused (3 scheduled runs in a row failed): not scheduled until an owner resumes it. Null when it is not paused.",
    ),
  ),
});
export type AgentView = v.InferOutput<typeof AgentView>;

export const updateAgentOp = defineOperation({
  id: "updateAgent",
  role: "owner",
  summary: "Edit an agent's schedule or instructions",
  description:
    "Sets the agent's schedule — a five-field cron expression (minute hour day month weekday) in the organization's time zone, e.g. \"0 8,18 * * *\", or null for none — and/or its instructions, the system prompt of its model-backed runs (null goes back to the catalog's default). The scheduler runs built-in agents (standup, briefing, pulse, dna) on their schedule, and model-backed ones once a model and their sources are connected; for slack the schedule records when an external runner is expected to run it.",
  input: v.pipe(
    v.strictObject({
      id: AgentIdParam,
      schedule: v.optional(v.nullable(Schedule)),
      instructions: v.optional(
        v.nullable(v.pipe(Instructions, v.description("The agent's instructions for this organization; null: the default."))),
      ),
      dailyTokens: v.optional(
        DailyTokens("The agent's own daily token cap (UTC day), beside the organization's budget; null: none. Owners only."),
      ),
      runOnNewMail: v.optional(
        v.pipe(v.boolean("Must be true or false."), v.description("inbox: false stops new mail from starting runs (the schedule stays).")),
      ),
    }),
    v.check(
      (input) =>
        input.schedule !== undefined ||
        input.instructions !== undefined ||
        input.dailyTokens !== undefined ||
        input.runOnNewMail !== undefined,
      "Send schedule, instructions, dailyTokens, runOnNewMail, or several.",
    ),
  ),
  output: AgentView,
  rest: { method: "PATCH", path: "/api/agents/{id}", access: writeAccess(), from: "body", tags },
  handler: async (ctx, input) => {
    assertAgent(input.id);
    const orgId = ctx.principal.orgId;
    if (input.dailyTokens !== undefined) {
      await setAgentDailyTokens(ctx.db, orgId, input.id, input.dailyTokens);
    }
    if (input.runOnNewMail !== undefined) await setRunOnNewMail(ctx.db, orgId, input.id, input.runOnNewMail);
    if (input.instructions !== undefined) await setInstructionOverride(ctx.db, orgId, input.id, input.instructions, ctx.clock.now());
    if (input.schedule !== undefined && !(await setAgentSchedule(ctx.db, orgId, input.id, input.schedule)))
      throw notFound(`Agent ${input.id}`);
    return agentView(ctx, orgId, input.id);
  },
});

/** The agent's record, schedule and instructions in effect. */
export async function agentView(ctx: { db: Db; clock: Clock }, orgId: string, agentId: string): Promise<v.InferOutput<typeof AgentView>> {
  const [agent, org, custom, cap, triggers] = await Promise.all([
    getAgentRecord(ctx.db, orgId, agentId),
    getOrg(ctx.db, orgId),
    getInstructionOverride(ctx.db, orgId, agentId),
    agentDailyTokens(ctx.db, orgId, agentId),
    agentTriggers(ctx.db, orgId, agentId),
  ]);
  if (!agent || !org) throw notFound(`Agent ${agentId}`);
  const next = agent.schedule ? nextSlot(agent.schedule, org.timeZone, ctx.clock.now()) : null;
  const job = jobOf(agent.id);
  return {
    id: agent.id,
    name: agent.name,
    schedule: agent.schedule,
    timeZone: org.timeZone,
    runner: job.runner,
    instructions: custom ?? job.instructions,
    customInstructions: custom !== null,
    nextRunAt: isoOrNull(next),
    dailyTokens: cap,
    runOnNewMail: triggers?.runOnNewMail ?? true,
    triggerSecret: Boolean(triggers?.secret),
    pausedReason: agent.pausedReason,
  };
}
