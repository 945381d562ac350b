/**
 * Multi round-trip input (MCP 2026-07-28, `input_required`) before a tool writes: the client
 * answers by retrying the call with `inputResponses`. Asked only of clients whose request declares
 * elicitation; others are served as before. No credential or secret is ever asked through a form:
 * a missing calendar sends a URL-capable client to Crew's own settings page.
 *
 * - `crew_calendar_create` asks to confirm title, start and end; decline or cancel create nothing
 *   and say so.
 * - `crew_update_action` asks before dismissing a critical action; decline or cancel leave it.
 * - With no calendar connected, a client that takes URL elicitations is sent to
 *   `{base}/settings/calendar`; after it, the call runs (and says how to connect if still none).
 *
 * Checks before data (src/docs/notes/mcp-clients.md#confirmations): nothing is read or asked
 * before the caller's role, plan and scope allow the tool (the same checks `invoke` makes, so a
 * refused caller gets the tool's own refusal and no elicitation quoting a record), and everything a
 * question reads (the action, the calendar, what an agent lacks) is read through `invoke` like any
 * other read. Only an elicitation `accept`
 * carrying the requested field confirms; any other answer (decline, cancel, a roots or sampling
 * result in its place, a wrong field) is a refusal, answered as a tool error so the result stays
 * valid for a tool that declares an output schema.
 */
import { inputRequired, inputResponse } from "@modelcontextprotocol/server";
import * as v from "valibot";
import { NEEDS_MODEL } from "../agents/model-run.ts";
import { isAgentId } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { getActionOp } from "../operations/actions.ts";
import { getAgentReadinessOp } from "../operations/agent-run-now.ts";
import { getCalendarIntegrationOp } from "../operations/integrations.ts";
import { authorizeOperation, authorizeRole, invoke } from "../operations/invoke.ts";
import type { AnySchema, Operation } from "../operations/registry.ts";
import { type McpTool, type ToolContext, toolError } from "./tools.ts";

export const CALENDAR_SETTINGS_PATH = "/settings/calendar";
const MODEL_SETTINGS_PATH = "/settings/model";
const SOURCES_SETTINGS_PATH = "/settings/sources";

interface Elicitation {
  form?: unknown;
  url?: unknown;
}

export interface ConfirmationContext {
  /** The call's context: its principal, and what reads run with. */
  ctx: ToolContext;
  /** What the request's envelope declares (`elicitation`: form and/or url). */
  elicitation: Elicitation | undefined;
  inputResponses: Record<string, unknown> | undefined;
}

const confirmSchema = (title: string) => ({
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title, default: true } },
  required: ["confirm"],
});
const CONFIRM_SCHEMA = confirmSchema("Create this event");

/** Whether the caller may run the tool at all: its role, plan and scope, as `invoke` checks them. */
function allowed(tool: McpTool, ctx: ToolContext): boolean {
  try {
    authorizeRole(tool.op, ctx);
    authorizeOperation(ctx.principal, tool.mcp.access);
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/** A read a question needs, through the door with the tool's own access; null when it is refused or finds nothing. */
async function readAs<I extends AnySchema, O extends AnySchema>(
  tool: McpTool,
  op: Operation<I, O>,
  input: v.InferInput<I>,
  ctx: ToolContext,
): Promise<v.InferOutput<O> | null> {
  const call = { access: tool.mcp.access, input: () => input, inputName: "arguments" };
  try {
    return (await invoke(op as unknown as Operation, { ...ctx, via: "mcp" }, call)) as v.InferOutput<O>;
  } catch (error) {
    if (error instanceof ApiError) return null; // the tool itself answers (not found, bad id)
    throw error;
  }
}

/** The refusal of a confirmation: a tool error with the words (the tool's output schema is not met by a refusal). */
const refused = (text: string) => toolError("not_confirmed", text);

/** Dismissing a critical action is asked first; any other update runs as sent. */
async function confirmDismissal(tool: McpTool, args: Record<string, unknown>, ctx: ConfirmationContext) {
  if (args.status !== "dismissed" || typeof args.id !== "string") return null;
  const action = await readAs(tool, getActionOp, { id: args.id }, ctx.ctx);
  if (action?.priority !== "critical" || action.status === "dismissed") return null; // the tool answers as usual
  const answer = inputResponse(ctx.inputResponses, "confirm");
  if (answer.kind === "missing") {
    return inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({
          message: `Dismiss the critical action "${action.title}"?`,
          requestedSchema: confirmSchema("Dismiss this critical action"),
        }),
      },
    });
  }
  if (confirmed(answer)) return null;
  const how = answer.kind !== "elicit" ? "did not confirm" : answer.action === "cancel" ? "cancelled" : "declined";
  return refused(`You ${how} dismissing "${action.title}". Nothing was changed; it is still ${action.status}.`);
}

type Answer = ReturnType<typeof inputResponse>;

/** Yes only as the elicitation it asked for: `accept` with `confirm: true`. */
const confirmed = (answer: Answer) => answer.kind === "elicit" && answer.action === "accept" && answer.content?.confirm === true;

const nothingDone = (why: string) => refused(`${why} Nothing was created or changed.`);

/**
 * An agent without its model or source: a URL-capable client is sent to the settings page that
 * connects it (the model's, or the sources'); after it, the call runs and says what is still missing.
 */
async function sendToSettings(tool: McpTool, args: Record<string, unknown>, ctx: ConfirmationContext) {
  if (ctx.elicitation?.url === undefined || typeof args.agent !== "string" || !isAgentId(args.agent)) return null;
  if (inputResponse(ctx.inputResponses, "connect").kind !== "missing") return null;
  const missing = (await readAs(tool, getAgentReadinessOp, { agent: args.agent }, ctx.ctx))?.missing;
  if (!missing) return null;
  const path = missing === NEEDS_MODEL ? MODEL_SETTINGS_PATH : SOURCES_SETTINGS_PATH;
  return inputRequired({
    inputRequests: {
      connect: inputRequired.elicitUrl({
        message: `${args.agent} cannot run yet: ${missing}.`,
        url: new URL(path, ctx.ctx.config.baseUrl).toString(),
      }),
    },
  });
}

/**
 * What to answer instead of running the tool yet: an input request, or the result of a declined
 * one; null when the tool runs now.
 */
export async function confirmationFor(tool: McpTool, args: Record<string, unknown>, ctx: ConfirmationContext) {
  if (!ctx.elicitation || !ASKING_TOOLS.has(tool.mcp.name)) return null;
  // A caller who may not run the tool gets its refusal from the call itself, and nothing read first.
  if (!allowed(tool, ctx.ctx)) return null;
  if (tool.mcp.name === "crew_update_action") return confirmDismissal(tool, args, ctx);
  if (tool.mcp.name === "crew_run_agent") return sendToSettings(tool, args, ctx);
  const formCapable = ctx.elicitation.form !== undefined || ctx.elicitation.url === undefined; // `{}` means form
  const urlCapable = ctx.elicitation.url !== undefined;

  const calendar = await readAs(tool, getCalendarIntegrationOp, {}, ctx.ctx);
  if (!calendar?.connected) {
    if (!urlCapable || inputResponse(ctx.inputResponses, "connect").kind !== "missing") return null;
    return inputRequired({
      inputRequests: {
        connect: inputRequired.elicitUrl({
          message: "No calendar is connected to Crew. Connect one in Crew's settings, then come back.",
          url: new URL(CALENDAR_SETTINGS_PATH, ctx.ctx.config.baseUrl).toString(),
        }),
      },
    });
  }

  const parsed = v.safeParse(tool.mcp.input ?? tool.op.input, args);
  if (!parsed.success || !formCapable) return null; // invalid arguments get the tool's own error
  const { title, start, end } = parsed.output as { title: string; start: string; end: string };
  const answer = inputResponse(ctx.inputResponses, "confirm");
  if (answer.kind === "missing") {
    return inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({
          message: `Create "${title}" from ${start} to ${end} on your calendar?`,
          requestedSchema: CONFIRM_SCHEMA,
        }),
      },
    });
  }
  if (confirmed(answer)) return null;
  if (answer.kind === "elicit" && answer.action === "decline") return nothingDone(`You declined creating "${title}".`);
  if (answer.kind === "elicit" && answer.action === "cancel") return nothingDone(`You cancelled creating "${title}".`);
  return nothingDone(`You did not confirm creating "${title}".`);
}

/** The tools that may ask before they run. */
const ASKING_TOOLS = new Set(["crew_update_action", "crew_run_agent", "crew_calendar_create"]);
