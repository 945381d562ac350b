/**
 * Suggestions (src/docs/notes/model.md): their evidence, who else raised them, and their lifecycle —
 * open → accepted (made an action, kept as `actionId`) | dismissed (an optional reason) |
 * superseded. Dismissals reach the agents' runs, so a topic is not suggested again for 30 days.
 * Accepting is idempotent: a suggestion accepted twice is still one action.
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { ownerDenial } from "../auth/roles.ts";
import { AGENTS, SUGGESTION_STATUSES } from "../domain.ts";
import { notFound } from "../errors.ts";
import { iso } from "../lib/clock.ts";
import { actionCreated, actionInsertIfStatement, dismissActionsResting, newActionRow } from "../store/actions/actions.ts";
import {
  acceptClaim,
  findSuggestion,
  releaseSuggestion,
  type SuggestionRecord,
  setSuggestionStatus,
} from "../store/actions/suggestions.ts";
import { commit } from "../store/commit.ts";
import { sourceOf } from "./actions.ts";
import { EvidenceList, HeldReason, ProvenanceField } from "./evidence-schema.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, Priority } from "./schemas.ts";

export const Suggestion = v.object({
  id: v.string(),
  agent: v.string(),
  title: v.string(),
  detail: v.string(),
  priority: Priority,
  status: v.picklist(SUGGESTION_STATUSES),
  alsoRaisedBy: v.pipe(v.array(v.string()), v.description("Other agents that raised the same thing.")),
  evidence: EvidenceList,
  actionId: v.pipe(v.nullable(v.string()), v.description("Accepted: the action it became.")),
  reason: v.pipe(v.nullable(v.string()), v.description("Dismissed: why, when a reason was given.")),
  runId: v.nullable(v.string()),
  createdAt: DateTime,
  updatedAt: DateTime,
  provenance: ProvenanceField,
  held: v.pipe(v.boolean(), v.description("Held for an owner's review: out of every list but the review until released.")),
  heldReason: HeldReason,
});

export const toSuggestionView = (s: SuggestionRecord): v.InferOutput<typeof Suggestion> => ({
  id: s.id,
  agent: s.agent,
  title: s.title,
  detail: s.detail,
  priority: s.priority,
  status: s.status,
  alsoRaisedBy: s.alsoRaisedBy,
  evidence: s.evidence,
  actionId: s.actionId,
  reason: s.reason,
  runId: s.runId,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
  provenance: s.provenance,
  held: s.held,
  heldReason: s.heldReason,
});

const agentName = (id: string) => AGENTS.find((a) => a.id === id)?.name ?? id;

/** The action a suggestion becomes: its title and priority; its agent, detail and evidence in the description and record. */
export function suggestionAsAction(s: Pick<SuggestionRecord, "agent" | "title" | "detail" | "priority" | "evidence">) {
  const description = `Suggested by the ${agentName(s.agent)} agent (${s.agent}).${s.detail ? `\n\n${s.detail}` : ""}`;
  return { title: s.title, priority: s.priority, description: description.slice(0, 5000), type: "task" as const, evidence: s.evidence };
}

export const updateSuggestionOp = defineOperation({
  id: "updateSuggestion",
  summary: "Accept or dismiss a suggestion",
  description:
    'Sets a suggestion\'s status: "accepted" makes it an action (once: accepting again returns the same actionId), "dismissed" (with an optional reason of at most 500 characters) keeps the agents from suggesting the same thing for 30 days, "open" undoes either. Returns the stored suggestion.',
  input: v.strictObject({
    id: v.pipe(v.string(), v.description("The suggestion id (sug_…).")),
    status: v.picklist(["open", "accepted", "dismissed"], "Must be one of open, accepted, dismissed."),
    reason: v.optional(v.pipe(v.string(), v.maxLength(500, "Must be at most 500 characters."))),
  }),
  output: Suggestion,
  rest: { method: "PATCH", path: "/api/mcp/suggestions/{id}", access: writeAccess(), from: "body", tags: ["Reports"] },
  mcp: {
    name: "crew_update_suggestion",
    title: "Accept or dismiss a suggestion",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    links: (out) => (out.actionId ? [{ uri: `crew://actions/${out.actionId}`, name: String(out.actionId) }] : []),
  },
  handler: async (ctx, input) => {
    const orgId = ctx.principal.orgId;
    const found = await findSuggestion(ctx.db, orgId, input.id);
    if (!found) throw notFound(`Suggestion ${input.id}`);
    const now = ctx.clock.now();
    // A held suggestion is an owner's to decide (src/docs/notes/prompt-injection.md#held): any change releases it first.
    if (found.held) {
      const denied = ownerDenial(ctx.principal);
      if (denied) throw denied;
      await releaseSuggestion(ctx.db, orgId, found.id, now);
    }
    if (input.status === "accepted" && !found.actionId) {
      // Claimed and inserted in one transaction: of two accepts at once, the second writes nothing and answers the first's action.
      const row = newActionRow(suggestionAsAction(found), { orgId, source: sourceOf(ctx.via), createdBy: ctx.principal.userId, now });
      const { claim, claimed } = acceptClaim(orgId, found.id, row.id, now);
      await commit(ctx.db, [claim, actionInsertIfStatement(row, claimed)], [actionCreated(row)], ctx.events.emit, claimed);
    } else {
      const reason = input.reason?.trim() || null;
      await setSuggestionStatus(ctx.db, orgId, input.id, { status: input.status, reason, actionId: found.actionId }, now);
      // "No" to a finding is "no" to the open action a run made from the same evidence (src/docs/notes/prompt-injection.md#said-once).
      if (input.status === "dismissed") await dismissActionsResting(ctx.db, orgId, found.evidence, now);
    }
    return toSuggestionView((await findSuggestion(ctx.db, orgId, input.id)) ?? found);
  },
});
