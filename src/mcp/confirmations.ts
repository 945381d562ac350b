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
 */
import { type CallToolResult, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import * as v from "valibot";
import { NEEDS_MODEL } from "../agents/model-run.ts";
import type { Principal } from "../domain.ts";
import { isAgentId } from "../domain.ts";
import { findAction } from "../store/actions/actions.ts";
import type { Db } from "../store/db.ts";
import { hasIntegration } from "../store/integrations/integrations.ts";
import type { McpTool } from "./tools.ts";

export const CALENDAR_SETTINGS_PATH = "/settings/calendar";
const MODEL_SETTINGS_PATH = "/settings/model";
const SOURCES_SETTINGS_PATH = "/settings/sources";

interface Elicitation {
  form?: unknown;
  url?: unknown;
}

export interface ConfirmationContext {
  db: Db;
  baseUrl: string;
  principal: Principal;
  /** What the request's envelope declares (`elicitation`: form and/or url). */
  elicitation: Elicitation | undefined;
  inputResponses: Record<string, unknown> | undefined;
  /** What an agent lacks to run (src/agents/model-run.ts whatIsMissing), for `crew_run_agent`. */
  missingFor?: (agentId: string) => Promise<string | null>;
}

const confirmSchema = (title: string) => ({
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title, default: true } },
  required: ["confirm"],
});
const CONFIRM_SCHEMA = confirmSchema("Create this event");

/** Dismissing a critical action is asked first; any other update runs as sent. */
async function confirmDismissal(args: Record<string, unknown>, ctx: ConfirmationContext) {
  if (args.status !== "dismissed" || typeof args.id !== "string") return null;
  const action = await findAction(ctx.db, ctx.principal.orgId, args.id);
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
  if (answer.kind !== "elicit") return null;
  if (answer.action === "accept" && answer.content?.confirm === true) return null;
  const how = answer.action === "cancel" ? "cancelled" : "declined";
  return {
    content: [{ type: "text", text: `You ${how} dismissing "${action.title}". Nothing was changed; it is still ${action.status}.` }],
  };
}

const nothingDone = (why: string): CallToolResult => ({
  content: [{ type: "text", text: `${why} Nothing was created or changed.` }],
});

/**
 * An agent without its model or source: a URL-capable client is sent to the settings page that
 * connects it (the model's, or the sources'); after it, the call runs and says what is still missing.
 */
async function sendToSettings(args: Record<string, unknown>, ctx: ConfirmationContext) {
  if (ctx.elicitation?.url === undefined || typeof args.agent !== "string" || !isAgentId(args.agent) || !ctx.missingFor) return null;
  if (inputResponse(ctx.inputResponses, "connect").kind !== "missing") return null;
  const missing = await ctx.missingFor(args.agent);
  if (!missing) return null;
  const path = missing === NEEDS_MODEL ? MODEL_SETTINGS_PATH : SOURCES_SETTINGS_PATH;
  return inputRequired({
    inputRequests: {
      connect: inputRequired.elicitUrl({
        message: `${args.agent} cannot run yet: ${missing}.`,
        url: new URL(path, ctx.baseUrl).toString(),
      }),
    },
  });
}

/**
 * What to answer instead of running the tool yet: an input request, or the result of a declined
 * one; null when the tool runs now.
 */
export async function confirmationFor(tool: McpTool, args: Record<string, unknown>, ctx: ConfirmationContext) {
  if (!ctx.elicitation) return null;
  if (tool.mcp.name === "crew_update_action") return confirmDismissal(args, ctx);
  if (tool.mcp.name === "crew_run_agent") return sendToSettings(args, ctx);
  if (tool.mcp.name !== "crew_calendar_create") return null;
  const formCapable = ctx.elicitation.form !== undefined || ctx.elicitation.url === undefined; // `{}` means form
  const urlCapable = ctx.elicitation.url !== undefined;

  if (!(await hasIntegration(ctx.db, ctx.principal.userId, "calendar"))) {
    if (!urlCapable || inputResponse(ctx.inputResponses, "connect").kind !== "missing") return null;
    return inputRequired({
      inputRequests: {
        connect: inputRequired.elicitUrl({
          message: "No calendar is connected to Crew. Connect one in Crew's settings, then come back.",
          url: new URL(CALENDAR_SETTINGS_PATH, ctx.baseUrl).toString(),
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
  if (answer.kind !== "elicit") return null;
  if (answer.action === "decline") return nothingDone(`You declined creating "${title}".`);
  if (answer.action === "cancel") return nothingDone(`You cancelled creating "${title}".`);
  if (answer.content?.confirm !== true) return nothingDone(`You chose not to create "${title}".`);
  return null;
}
