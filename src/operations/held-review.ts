/**
 * An owner's review of what was held (src/docs/notes/prompt-injection.md#held): release it — it
 * joins the lists, the briefing and the webhooks as if just written (an action's `action.created`
 * fires now, not before) — or dismiss it. Members are refused on every door; the role decides.
 */
import { ownerDenial } from "../auth/roles.ts";
import type { DomainEvent } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { type ActionRecord, actionCreated, findAction, releaseHeldActionStatement } from "../store/actions/actions.ts";
import { findSuggestion, releaseSuggestion, setSuggestionStatus } from "../store/actions/suggestions.ts";
import { commit } from "../store/commit.ts";
import { dismissHeldHandoff, releaseHandoff } from "../store/feed/handoffs.ts";
import { dismissHeldInsight, releaseInsight } from "../store/feed/insights.ts";
import type { OperationContext } from "./registry.ts";

export type Decision = "release" | "dismiss";

function ownersOnly(ctx: Pick<OperationContext, "principal">): void {
  const denied = ownerDenial(ctx.principal);
  if (denied) throw denied;
}

/** Releases (to pending) or dismisses a held action; returns the stored action. */
export async function reviewHeldAction(ctx: OperationContext, action: ActionRecord, decision: Decision): Promise<ActionRecord> {
  ownersOnly(ctx);
  const orgId = ctx.principal.orgId;
  const now = ctx.clock.now();
  const { statement, released } = releaseHeldActionStatement(orgId, action.id, decision === "release" ? "pending" : "dismissed", now);
  // action.created as if the action were written now (src/store/actions/actions.ts builds every one).
  const events: DomainEvent[] = decision === "release" ? [actionCreated({ ...action, orgId, status: "pending", createdAt: now })] : [];
  await commit(ctx.db, [statement], events, ctx.events.emit, released);
  return (await findAction(ctx.db, orgId, action.id)) ?? action;
}

/** Reviews any held record by its id (act_…, sug_…, ins_…, hof_…). */
export async function reviewHeld(
  ctx: OperationContext,
  id: string,
  decision: Decision,
): Promise<{ id: string; kind: string; decision: Decision }> {
  ownersOnly(ctx);
  const orgId = ctx.principal.orgId;
  const now = ctx.clock.now();
  const kind = id.slice(0, 4);
  let done = false;
  if (kind === "act_") {
    const action = await findAction(ctx.db, orgId, id);
    if (action?.status === "held") {
      await reviewHeldAction(ctx, action, decision);
      done = true;
    }
  } else if (kind === "sug_") {
    const suggestion = await findSuggestion(ctx.db, orgId, id);
    if (suggestion?.held) {
      done = await releaseSuggestion(ctx.db, orgId, id, now);
      if (decision === "dismiss")
        await setSuggestionStatus(ctx.db, orgId, id, { status: "dismissed", reason: "Dismissed from the review of held records." }, now);
    }
  } else if (kind === "ins_")
    done = decision === "release" ? await releaseInsight(ctx.db, orgId, id) : await dismissHeldInsight(ctx.db, orgId, id);
  else if (kind === "hof_")
    done = decision === "release" ? await releaseHandoff(ctx.db, orgId, id, now) : await dismissHeldHandoff(ctx.db, orgId, id, now);
  else
    throw new ApiError(400, "invalid_request", "Not the id of an action, suggestion, insight or handoff.", {
      issues: [{ path: "id", message: "Must start with act_, sug_, ins_ or hof_." }],
    });
  if (!done) throw notFound(`Held record ${id}`);
  const kinds: Record<string, string> = { act_: "action", sug_: "suggestion", ins_: "insight", hof_: "handoff" };
  return { id, kind: kinds[kind] ?? "record", decision };
}
