/**
 * Held for review (src/docs/notes/prompt-injection.md#held): what runs wrote from outside input that
 * shows signs of an attack waits here, out of every other list, until an owner releases or
 * dismisses it. The dashboard's "Held for review (N)" reads the same operation; over MCP,
 * `crew_list_actions {status: "held"}` lists held actions and `crew_update_action` releases them.
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { iso } from "../lib/clock.ts";
import { listHeldActions } from "../store/actions/actions.ts";
import { listSuggestions } from "../store/actions/suggestions.ts";
import { listHandoffs } from "../store/feed/handoffs.ts";
import { listRecentInsights } from "../store/feed/insights.ts";
import { Action, toActionView } from "./actions.ts";
import { reviewHeld } from "./held-review.ts";
import { Handoff, Insight } from "./listings.ts";
import { defineOperation } from "./registry.ts";
import { Suggestion, toSuggestionView } from "./suggestions.ts";

/** At most this many of each kind are listed (the review is meant to stay short). */
const LISTED = 100;

export const listHeldOp = defineOperation({
  id: "listHeld",
  summary: "Held for review",
  description:
    "What runs wrote from outside input that shows signs of an attack (instructions, requests for money, bank details, credentials or codes, or an address, link or number only that input holds), with the reason and the evidence: actions, suggestions, insights and handoffs. None of it is in the queue, the briefing, the standup or a webhook until an owner releases it.",
  input: v.strictObject({}),
  output: v.object({
    count: v.number(),
    actions: v.array(Action),
    suggestions: v.array(Suggestion),
    insights: v.array(Insight),
    handoffs: v.array(Handoff),
  }),
  rest: { method: "GET", path: "/api/mcp/held", access: writeAccess("read"), from: "query", tags: ["Actions"] },
  handler: async (ctx) => {
    const orgId = ctx.principal.orgId;
    const [actions, suggestions, insights, handoffs] = await Promise.all([
      listHeldActions(ctx.db, orgId, LISTED),
      listSuggestions(ctx.db, orgId, { held: true, limit: LISTED }),
      listRecentInsights(ctx.db, orgId, LISTED, null, true),
      listHandoffs(ctx.db, orgId, { status: "queued", held: true }, LISTED),
    ]);
    return {
      count: actions.length + suggestions.length + insights.insights.length + handoffs.length,
      actions: actions.map(toActionView),
      suggestions: suggestions.map(toSuggestionView),
      insights: insights.insights.map((i) => ({ ...i, createdAt: iso(i.createdAt) })),
      handoffs: handoffs.map((h) => ({ ...h, createdAt: iso(h.createdAt), updatedAt: iso(h.updatedAt) })),
    };
  },
});

export const reviewHeldOp = defineOperation({
  id: "reviewHeld",
  summary: "Release or dismiss a held record",
  description:
    "An owner's decision on a record held for review (act_…, sug_…, ins_…, hof_…): release lists it as if just written (an action's action.created webhook fires now), dismiss closes it. Owners only.",
  role: "owner",
  input: v.strictObject({
    id: v.pipe(v.string("Must be a string."), v.description("The held record's id (act_…, sug_…, ins_…, hof_…).")),
    decision: v.picklist(["release", "dismiss"], "Must be release or dismiss."),
  }),
  output: v.object({ id: v.string(), kind: v.string(), decision: v.picklist(["release", "dismiss"]) }),
  rest: { method: "POST", path: "/api/mcp/held/{id}", access: writeAccess(), from: "body", tags: ["Actions"] },
  handler: (ctx, input) => reviewHeld(ctx, input.id, input.decision),
});
