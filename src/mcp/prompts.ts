/**
 * MCP prompts (src/docs/notes/mcp-resources-and-prompts.md): Claude Code, Gemini CLI and others show them as slash commands. Each is
 * the request to the model first, as text — Gemini CLI reads only the first message, and only if it
 * is text, so that message must stand alone and name the tools that fetch the data — then the live
 * data: the briefing, the queue, a week of standups, embedded as resources (JSON, with their
 * crew:// URI) or text. Every read is an operation called through `invoke` (never the store), with
 * the access its MCP tool has, so a prompt never shows what the credential could not get from the
 * tools; a part it may not see is said in words. Access to the prompt
 * itself as the tools': read tier, `hand_off` write tier (it ends in a write tool call).
 */
import type { GetPromptResult, Prompt, PromptMessage } from "@modelcontextprotocol/server";
import type * as v from "valibot";
import { type Access, denial, readAccess, writeAccess } from "../auth/access.ts";
import { AGENT_IDS, AGENTS } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { DAY } from "../lib/clock.ts";
import { type Action, listActionsOp } from "../operations/actions.ts";
import { getAgentsOp } from "../operations/agents.ts";
import { findTimeOp } from "../operations/calendar.ts";
import { invoke } from "../operations/invoke.ts";
import type { AnySchema, Operation, OperationContext } from "../operations/registry.ts";
import { getBriefingOp, getCompanyProfileOp } from "../operations/reports.ts";
import { getWeeklyReviewOp } from "../operations/weekly-review.ts";
import { INVALID_PARAMS, INVALID_REQUEST, protocolError } from "./protocol-error.ts";
import { JSON_MIME } from "./resources.ts";

type PromptContext = Omit<OperationContext, "via">;

export interface CrewPrompt {
  name: string;
  title: string;
  description: string;
  access: Access;
  arguments?: { name: string; description: string; required: boolean; values?: readonly string[] }[];
  build(ctx: PromptContext, args: Record<string, string>): Promise<PromptMessage[]>;
}

/** An action awaiting work for longer than this is stale (review_queue). */
export const STALE_AFTER = 7 * DAY;

const text = (t: string): PromptMessage => ({ role: "user", content: { type: "text", text: t } });
const embedded = (uri: string, value: unknown): PromptMessage => ({
  role: "user",
  content: { type: "resource", resource: { uri, mimeType: JSON_MIME, text: JSON.stringify(value) } },
});
/** Live data without a resource of its own: a heading and the JSON. */
const jsonText = (heading: string, value: unknown): PromptMessage => text(`${heading}\n${JSON.stringify(value)}`);
const actionLines = (actions: v.InferOutput<typeof Action>[]) =>
  actions.map((a) => `- [${a.priority}] ${a.title} (crew://actions/${a.id}, ${a.status}, ${a.type}, from ${a.source})`).join("\n");

/**
 * Runs an operation as its MCP tool would for this caller: same access check, same validation. An
 * operation without a tool (a prompt's own read) asks the access given.
 */
async function asTool<I extends AnySchema, O extends AnySchema>(
  op: Operation<I, O>,
  ctx: PromptContext,
  input: unknown,
  access?: Access,
): Promise<v.InferOutput<O>> {
  const needed = op.mcp?.access ?? access;
  if (!needed) throw new Error(`${op.id} has no MCP tool`);
  const call = { access: needed, input: () => input, inputName: "arguments" };
  return (await invoke(op as unknown as Operation, { ...ctx, via: "mcp" }, call)) as v.InferOutput<O>;
}

/** The open queue as crew_list_actions pages it (critical first, then newest), up to `max` actions. */
async function openActions(ctx: PromptContext, max: number): Promise<v.InferOutput<typeof Action>[]> {
  const actions: v.InferOutput<typeof Action>[] = [];
  let cursor: string | null = null;
  do {
    const page: { actions: v.InferOutput<typeof Action>[]; nextCursor: string | null } = await asTool(listActionsOp, ctx, {
      view: "open",
      limit: Math.min(100, max - actions.length),
      ...(cursor && { cursor }),
    });
    actions.push(...page.actions);
    cursor = page.nextCursor;
  } while (cursor && actions.length < max);
  return actions;
}

/** A part of a prompt the credential may not see (its tool would be refused) is said in words. */
async function orRefusal(part: () => Promise<string>, what: string): Promise<string> {
  try {
    return await part();
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return `${what} are left out: ${error.message}`;
    throw error;
  }
}

const planMyDay: CrewPrompt = {
  name: "plan_my_day",
  title: "Plan my day",
  description:
    "Today's plan from the daily briefing, the open critical and high-priority actions, and free slots on the connected calendar (when one is connected).",
  access: readAccess("briefing"),
  async build(ctx) {
    const briefing = await asTool(getBriefingOp, ctx, {});
    const urgent = await orRefusal(async () => {
      const found = (await openActions(ctx, 100)).filter((a) => a.priority === "critical" || a.priority === "high");
      return found.length > 0
        ? `Open critical and high-priority actions:\n${actionLines(found)}`
        : "No open critical or high-priority actions.";
    }, "Open actions");
    const messages = [
      text(
        "Plan my day: the three things to do first and why, what to delegate or drop, and (if free slots are listed) when to do the focused work. " +
          "Today's briefing, the open critical and high-priority actions and my free slots follow; if you do not see them, get them with crew_briefing, crew_list_actions and crew_find_time.",
      ),
      embedded("crew://briefing", briefing),
      text(urgent),
    ];
    const slots = await freeSlots(ctx);
    if (slots) messages.push(text(slots));
    return messages;
  },
};

/**
 * Free slots as crew_find_time gives them to this credential; a refusal or an unreadable calendar is
 * said in words; null when the user has connected no calendar.
 */
async function freeSlots(ctx: PromptContext): Promise<string | null> {
  try {
    const found = await asTool(findTimeOp, ctx, { durationMinutes: 30, count: 5 });
    const slots = found.slots.map((s) => `- ${s.start} – ${s.end}`).join("\n");
    return slots ? `Free 30-minute slots on my calendar (${found.timeZone}):\n${slots}` : "My calendar has no free slot this week.";
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === "calendar_not_connected") return null;
    if (error.status === 403) return `Free slots are left out: ${error.message}`;
    return `My calendar could not be read: ${error.message}`;
  }
}

const reviewQueue: CrewPrompt = {
  name: "review_queue",
  title: "Review the action queue",
  description:
    "The actions waiting for my approval and the open ones nobody has touched for 7 days, to decide what to approve, do, or dismiss.",
  access: readAccess(),
  async build(ctx) {
    const approvals = await asTool(listActionsOp, ctx, { status: "pending", type: "approval", limit: 50 });
    const cutoff = ctx.clock.now() - STALE_AFTER;
    const stale = (await openActions(ctx, 200)).filter((a) => Date.parse(a.updatedAt) < cutoff && a.type !== "approval");
    return [
      text(
        `${approvals.actions.length} action(s) await approval and ${stale.length} open action(s) have not changed for 7 days. ` +
          "Go through them with me: for each, recommend approve, do now, reschedule (lane) or dismiss, in one line; then apply what I agree to with crew_update_action. " +
          "They follow as JSON; if you do not see them, list them with crew_list_actions.",
      ),
      jsonText("Actions awaiting approval (JSON):", { approvals: approvals.actions }),
      jsonText("Open actions unchanged for 7 days (JSON):", { stale }),
    ];
  },
};

const weeklyReview: CrewPrompt = {
  name: "weekly_review",
  title: "Weekly review",
  description: "The last 7 days: the standups, the insights the crew posted, and how the deal pipeline moved.",
  access: readAccess(),
  async build(ctx) {
    const { standups, insights, pipelineMoves: moves } = await asTool(getWeeklyReviewOp, ctx, {}, readAccess());
    return [
      text(
        "Write my weekly review: what went well, what slipped, the trend in the metrics, the insights worth acting on, and three priorities for next week. " +
          "The last 7 days' standups, insights and pipeline moves follow; if you do not see them, get them with crew_standup and crew_company_profile.",
      ),
      jsonText("Standups of the last 7 days, oldest first (JSON):", { standups }),
      jsonText("Insights posted in the last 7 days, high impact first (JSON):", { insights }),
      text(moves.length > 0 ? `Pipeline moves this week:\n${moves.map((m) => `- ${m}`).join("\n")}` : "No pipeline moves this week."),
    ];
  },
};

const handOff: CrewPrompt = {
  name: "hand_off",
  title: "Hand off to an agent",
  description:
    "Drafts a handoff of work to one of the 17 agents (it receives it on its next run), then creates it with crew_create_handoff.",
  access: writeAccess(),
  arguments: [
    { name: "to", description: "The agent to hand the work to (one of the 17 agent ids, e.g. sales).", required: true, values: AGENT_IDS },
    { name: "title", description: "What the work is, in a line.", required: true },
  ],
  async build(ctx, args) {
    const to = args.to ?? "";
    const title = (args.title ?? "").trim();
    const bad: string[] = [];
    if (!AGENT_IDS.includes(to)) bad.push(`to: Must be one of the 17 agent ids (${AGENT_IDS.join(", ")}).`);
    if (title === "") bad.push("title: Required.");
    if (bad.length > 0) throw protocolError(INVALID_PARAMS, `Invalid arguments for hand_off — ${bad.join("; ")}`);
    const agent = AGENTS.find((a) => a.id === to);
    const status = (await asTool(getAgentsOp, ctx, {})).agents.find((a) => a.id === to);
    const profile = await asTool(getCompanyProfileOp, ctx, {});
    return [
      text(
        `Draft a handoff to the ${agent?.name ?? to} agent (${to}) titled "${title}": a context paragraph saying what is needed, by when and what done looks like, ` +
          'a priority (low, medium, high or critical: critical starts the agent at once) and a type (research, draft, review or action). Show me the draft; once I agree, call crew_create_handoff with from "manual", ' +
          `to "${to}", that title, context, priority and type. The agent's state and the company profile follow; if you do not see them, get them with crew_agent_status and crew_company_profile.`,
      ),
      jsonText(`The ${to} agent now (JSON):`, {
        agent: to,
        name: agent?.name,
        health: status?.health,
        lastRun: status?.generatedAt,
        summary: status?.summary,
      }),
      embedded("crew://profile", profile),
    ];
  },
};

export const PROMPTS: readonly CrewPrompt[] = [planMyDay, reviewQueue, weeklyReview, handOff];

export function listPrompts(prompts: readonly CrewPrompt[], principal: PromptContext["principal"]): Prompt[] {
  return prompts
    .filter((p) => denial(principal, p.access) === null)
    .map((p) => ({
      name: p.name,
      title: p.title,
      description: p.description,
      ...(p.arguments && { arguments: p.arguments.map(({ name, description, required }) => ({ name, description, required })) }),
    }));
}

export async function getPrompt(
  prompts: readonly CrewPrompt[],
  name: string,
  args: Record<string, string>,
  ctx: PromptContext,
): Promise<GetPromptResult> {
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt) throw protocolError(INVALID_PARAMS, `Unknown prompt: ${name}. Call prompts/list for the prompts available.`);
  const denied = denial(ctx.principal, prompt.access);
  if (denied) throw protocolError(INVALID_REQUEST, `${denied.code}: ${denied.message}`);
  try {
    return { description: prompt.description, messages: await prompt.build(ctx, args) };
  } catch (error) {
    if (error instanceof ApiError) throw protocolError(INVALID_REQUEST, `${error.code}: ${error.message}`);
    throw error;
  }
}
