/** The action queue (src/docs/notes/rest-api.md): list, add (one or a batch, all-or-nothing), update. */

import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import * as v from "valibot";
import { readAccess, writeAccess } from "../auth/access.ts";
import { ACTION_LANES, ACTION_STATUSES, ACTION_TYPES, AGENT_IDS } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { iso, isoOrNull } from "../lib/clock.ts";
import {
  type ActionCursor,
  type ActionRecord,
  actionCreated,
  actionInsertStatement,
  findAction,
  listActions,
  newActionRow,
  updateAction,
} from "../store/actions/actions.ts";
import { commit } from "../store/commit.ts";
import { contactIssues } from "../store/contacts/contacts.ts";
import { EvidenceList, HeldReason, ProvenanceField } from "./evidence-schema.ts";
import { reviewHeldAction } from "./held-review.ts";
import { defineOperation, type OperationContext } from "./registry.ts";
import { DateTime, LongText, PageLimit, Priority as PrioritySchema, ShortText, Title } from "./schemas.ts";

const Status = v.picklist(ACTION_STATUSES, `Must be one of ${ACTION_STATUSES.join(", ")}.`);
const Lane = v.picklist(ACTION_LANES, `Must be one of ${ACTION_LANES.join(", ")}.`);
const SOURCES = ["api", "mcp", "web", ...AGENT_IDS] as const;

/** The stored `source` of something a person wrote through a projection (src/docs/notes/rest-api.md). */
export const sourceOf = (via: OperationContext["via"]) => (via === "rest" ? "api" : via);

export const Action = v.object({
  id: v.string(),
  title: v.string(),
  description: v.nullable(v.string()),
  priority: PrioritySchema,
  category: v.nullable(v.string()),
  status: Status,
  source: v.pipe(v.string(), v.description("api (REST), mcp (MCP tool), web (the web app), or the id of the agent that created it.")),
  type: v.picklist(ACTION_TYPES),
  lane: Lane,
  contactId: v.nullable(v.string()),
  dealId: v.nullable(v.string()),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: v.pipe(v.string(), v.description("The user, or agent, that created it.")),
  evidence: EvidenceList,
  runId: v.pipe(v.nullable(v.string()), v.description("The agent run that wrote it.")),
  snoozedUntil: v.pipe(v.nullable(DateTime), v.description("Hidden from the open queue (view=open) until then.")),
  provenance: ProvenanceField,
  heldReason: HeldReason,
});

export const toActionView = (a: ActionRecord): v.InferOutput<typeof Action> => ({
  ...a,
  createdAt: iso(a.createdAt),
  updatedAt: iso(a.updatedAt),
  snoozedUntil: isoOrNull(a.snoozedUntil),
});

/** A snooze's end as given by a caller: an ISO 8601 date-time, or null to wake the action. */
const SnoozeEnd = v.pipe(
  v.nullable(
    v.pipe(
      v.string("Must be an ISO 8601 date-time or null."),
      v.isoTimestamp("Must be an ISO 8601 date-time with seconds and an offset, e.g. 2026-11-23T09:00:00Z, or null."),
    ),
  ),
  v.description("Hide the action from the open queue until then; null wakes it. A past time wakes it too."),
);

export const NewAction = v.strictObject({
  title: Title,
  description: v.optional(LongText),
  priority: v.optional(PrioritySchema, "medium"),
  category: v.optional(
    v.pipe(ShortText(50), v.minLength(1, "Must not be empty."), v.description("Free text; named: sales, product, ops, fundraising.")),
  ),
  type: v.optional(v.picklist(["task", "follow_up"], "Must be one of task, follow_up."), "task"),
  lane: v.optional(v.pipe(Lane, v.description("Defaults by priority: today (critical, high), this_week (medium), later (low)."))),
  contactId: v.optional(v.pipe(v.string("Must be a string."), v.description("An existing contact of the organization."))),
  dealId: v.optional(
    v.pipe(ShortText(100), v.minLength(1, "Must not be empty."), v.description("The deal's id in the organization's CRM.")),
  ),
});

const ActionBatch = v.strictObject({
  actions: v.pipe(
    v.array(NewAction, "Must be an array of actions."),
    v.minLength(1, "Must hold 1 to 100 actions."),
    v.maxLength(100, "Must hold 1 to 100 actions."),
  ),
});

/**
 * One action's fields beside `actions` mix the two forms (src/docs/notes/mcp-resources-and-prompts.md): named as a conflict on that
 * field rather than as an unknown field of the batch form.
 */
const mixedForms = (field: string) =>
  v.pipe(
    v.looseObject({}),
    v.rawCheck(({ addIssue }) =>
      addIssue({
        message: `Conflicts with actions: send one action's fields (title, priority, …) or a batch in actions, not both.`,
        path: [{ type: "object", origin: "value", input: {}, key: field, value: undefined }],
      }),
    ),
  );

const encodeCursor = (c: ActionCursor) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify([c.rank, c.id])));

function decodeCursor(cursor: string): ActionCursor {
  try {
    const [rank, id] = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(cursor)));
    // Only the sort keys this endpoint hands out: a priority rank 0–3 and an action id.
    if (Number.isInteger(rank) && rank >= 0 && rank <= 3 && typeof id === "string" && /^act_[0-9A-Z]{26}$/.test(id)) return { rank, id };
  } catch {}
  throw new ApiError(400, "invalid_request", "The cursor is invalid; pass the nextCursor of a previous page.", {
    issues: [{ path: "cursor", message: "Not a cursor returned by this endpoint." }],
  });
}

export const listActionsOp = defineOperation({
  id: "listActions",
  summary: "Action queue",
  description:
    'The organization\'s action queue, critical first, then newest, filterable by status, source, type and lane, paginated with nextCursor. Use it to see what is waiting for approval or completion. Actions held for review (status "held": written from outside input that shows signs of an attack) are listed only with status=held.',
  input: v.strictObject({
    status: v.optional(Status),
    source: v.optional(v.picklist(SOURCES, "Must be api, mcp, web, or an agent id.")),
    type: v.optional(v.picklist(ACTION_TYPES, `Must be one of ${ACTION_TYPES.join(", ")}.`)),
    lane: v.optional(Lane),
    view: v.optional(
      v.pipe(
        v.picklist(["open", "snoozed"], "Must be open or snoozed."),
        v.description("open: not done or dismissed and not snoozed now; snoozed: snoozed until a later time. Absent: every action."),
      ),
    ),
    limit: PageLimit(50),
    cursor: v.optional(
      v.pipe(
        v.string("Not a cursor returned by this endpoint."),
        v.minLength(1, "Not a cursor returned by this endpoint; omit it for the first page."),
        v.maxLength(200, "Not a cursor returned by this endpoint."),
      ),
    ),
  }),
  output: v.object({ actions: v.array(Action), nextCursor: v.nullable(v.string()) }),
  // REST lists the queue only for admin keys / crew:write; MCP treats it as a read-tier tool (src/docs/notes/access.md#scopes).
  rest: { method: "GET", path: "/api/mcp/actions", access: writeAccess("read"), from: "query", tags: ["Actions"] },
  mcp: {
    name: "crew_list_actions",
    title: "List actions",
    access: readAccess(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  handler: async (ctx, input) => {
    const after = input.cursor ? decodeCursor(input.cursor) : null;
    const { limit, cursor: _cursor, ...filter } = input;
    const page = await listActions(ctx.db, ctx.principal.orgId, { ...filter, now: ctx.clock.now() }, limit, after);
    return { actions: page.actions.map(toActionView), nextCursor: page.next ? encodeCursor(page.next) : null };
  },
});

type NewActionInput = v.InferOutput<typeof NewAction>;

export const addActionsOp = defineOperation({
  id: "addActions",
  summary: "Add action(s)",
  description:
    "Adds a task to the action queue, or a batch of 1–100 with {actions:[…]} (all stored or none). Actions surface in the daily briefing and the standup; critical ones at the top. Returns the new id(s) in input order.",
  input: v.union([NewAction, ActionBatch]),
  inputFor: (raw) => {
    if (typeof raw !== "object" || raw === null || !("actions" in raw)) return NewAction;
    const mixed = Object.keys(NewAction.entries).find((key) => key in raw);
    return mixed ? mixedForms(mixed) : ActionBatch;
  },
  output: v.union([
    v.object({ ok: v.literal(true), actionId: v.string() }),
    v.object({ ok: v.literal(true), actionIds: v.array(v.string()) }),
  ]),
  rest: { method: "POST", path: "/api/mcp/actions", access: writeAccess(), from: "body", tags: ["Actions"] },
  mcp: {
    name: "crew_add_action",
    title: "Add action",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    links: (out) => {
      const ids = "actionIds" in out ? (out.actionIds as string[]) : [out.actionId as string];
      return ids.map((id) => ({ uri: `crew://actions/${id}`, name: id }));
    },
    // One object for MCP: a single action's fields at the top level, or `actions` for a batch.
    input: v.strictObject({
      ...NewAction.entries,
      title: v.optional(v.pipe(Title, v.description("Required unless `actions` is given."))),
      actions: v.optional(
        v.pipe(ActionBatch.entries.actions, v.description("A batch of 1–100 actions instead of one; stored all or none.")),
      ),
    }),
  },
  handler: async (ctx, input) => {
    const batch = "actions" in input;
    const items: NewActionInput[] = batch ? input.actions : [input];
    const now = ctx.clock.now();

    const issues = await contactIssues(ctx.db, ctx.principal.orgId, items, (i) => (batch ? `actions[${i}].contactId` : "contactId"));
    if (issues.length > 0)
      throw new ApiError(400, "invalid_request", `Unknown contact: ${issues.map((i) => i.path).join(", ")}.`, { issues });

    const by = { orgId: ctx.principal.orgId, source: sourceOf(ctx.via), createdBy: ctx.principal.userId, now };
    const rows = items.map((a) => newActionRow(a, by));
    // One action.created event per action: its webhook row commits with the actions.
    await commit(ctx.db, rows.map(actionInsertStatement), rows.map(actionCreated), ctx.events.emit);
    return batch ? { ok: true as const, actionIds: rows.map((r) => r.id) } : { ok: true as const, actionId: rows[0]?.id ?? "" };
  },
});

export const getActionOp = defineOperation({
  id: "getAction",
  summary: "One action",
  description: "One action of the queue by id (act_…): its title, status, priority, lane and who created it.",
  input: v.strictObject({ id: v.pipe(v.string(), v.description("The action id (act_…).")) }),
  output: Action,
  // As the queue: admin keys / crew:write on REST, read tier as an MCP resource.
  rest: { method: "GET", path: "/api/mcp/actions/{id}", access: writeAccess("read"), from: "none", tags: ["Actions"] },
  resource: { uri: "crew://actions/{id}", name: "action", title: "One action", access: readAccess() },
  handler: async (ctx, input) => {
    const found = await findAction(ctx.db, ctx.principal.orgId, input.id);
    if (!found) throw notFound(`Action ${input.id}`);
    return toActionView(found);
  },
});

export const updateActionOp = defineOperation({
  id: "updateAction",
  summary: "Update an action",
  description:
    "Changes an action's status (pending, approved, in_progress, done, dismissed), priority or lane, or snoozes it (snoozedUntil: hidden from the open queue until then; null wakes it). An action held for review changes only by an owner: status pending releases it (action.created fires then), dismissed dismisses it. Returns the stored action.",
  input: v.pipe(
    v.strictObject({
      id: v.pipe(v.string(), v.description("The action id (act_…).")),
      status: v.optional(Status),
      priority: v.optional(PrioritySchema),
      lane: v.optional(Lane),
      snoozedUntil: v.optional(SnoozeEnd),
    }),
    v.check(
      (i) => i.status !== undefined || i.priority !== undefined || i.lane !== undefined || i.snoozedUntil !== undefined,
      "Send at least one of status, priority, lane, snoozedUntil.",
    ),
  ),
  output: Action,
  rest: { method: "PATCH", path: "/api/mcp/actions/{id}", access: writeAccess(), from: "body", tags: ["Actions"] },
  mcp: {
    name: "crew_update_action",
    title: "Update action",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    links: (out) => [{ uri: `crew://actions/${out.id}`, name: String(out.id) }],
  },
  handler: async (ctx, input) => {
    const { id, snoozedUntil, ...changes } = input;
    // A held action waits for an owner's review (src/docs/notes/prompt-injection.md#held): one door for release and dismissal.
    const held = await findAction(ctx.db, ctx.principal.orgId, id);
    if (held?.status === "held")
      return toActionView(await reviewHeldAction(ctx, held, changes.status === "dismissed" ? "dismiss" : "release"));
    if (changes.status === "held")
      throw new ApiError(400, "invalid_request", "Only Crew holds an action for review.", {
        issues: [{ path: "status", message: "Must be one of pending, approved, in_progress, done, dismissed." }],
      });
    const snooze = snoozedUntil === undefined ? {} : { snoozedUntil: snoozedUntil === null ? null : Date.parse(snoozedUntil) };
    const updated = await updateAction(ctx.db, ctx.principal.orgId, id, { ...changes, ...snooze }, ctx.clock.now());
    if (!updated) throw notFound(`Action ${id}`);
    return toActionView(updated);
  },
});
