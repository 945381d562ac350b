/** The write side besides the action queue: contacts (upsert), handoffs between agents, the insight feed. */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { AGENT_IDS, INSIGHT_TYPES, RELATIONSHIPS } from "../domain.ts";
import { newId } from "../lib/random.ts";
import { commit } from "../store/commit.ts";
import { upsertContact } from "../store/contacts/contacts.ts";
import { handoffInsertStatement } from "../store/feed/handoffs.ts";
import { insightInsertStatement } from "../store/feed/insights.ts";
import { defineOperation, type ToolAnnotations } from "./registry.ts";
import { Email, LongText, Priority, ShortText, Title } from "./schemas.ts";

const writes: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const Optional200 = v.pipe(ShortText(200), v.minLength(1, "Must not be empty."));

/** Fields of a contact, shared with the run completion (src/docs/notes/agents-runtime.md). */
export const contactFields = {
  name: Title,
  email: v.optional(Email),
  company: v.optional(Optional200),
  role: v.optional(Optional200),
  relationship: v.optional(v.picklist(RELATIONSHIPS, `Must be one of ${RELATIONSHIPS.join(", ")}.`)),
  notes: v.optional(LongText),
};

export const upsertContactOp = defineOperation({
  id: "upsertContact",
  summary: "Create or update a contact",
  description:
    "Creates a CRM contact or updates the matching one: matched by email (case-insensitive), or by name among contacts without an email. An update changes only the fields sent. Returns the contact id and whether it was created or updated.",
  input: v.strictObject(contactFields),
  output: v.object({ ok: v.literal(true), contactId: v.string(), action: v.picklist(["created", "updated"]) }),
  rest: { method: "POST", path: "/api/mcp/contacts", access: writeAccess(), from: "body", tags: ["Contacts"] },
  mcp: {
    name: "crew_add_contact",
    title: "Add or update contact",
    access: writeAccess(),
    annotations: { ...writes, idempotentHint: true },
  },
  handler: async (ctx, input) => {
    const now = ctx.clock.now();
    const result = await upsertContact(ctx.db, ctx.principal.orgId, newId("con", now), input, ctx.principal.userId, now);
    return { ok: true as const, contactId: result.id, action: result.created ? ("created" as const) : ("updated" as const) };
  },
});

const HandoffType = v.pipe(
  ShortText(50),
  v.minLength(1, "Must not be empty."),
  v.description("research, draft, review, action, or another classification."),
);

/** A handoff's fields besides its sender, shared with the run completion. */
export const handoffFields = {
  to: v.picklist(AGENT_IDS, "Must be one of the 17 agent ids."),
  title: Title,
  context: v.optional(LongText),
  priority: v.optional(Priority, "medium"),
  type: v.optional(HandoffType),
};

export const createHandoffOp = defineOperation({
  id: "createHandoff",
  summary: "Create a handoff",
  description:
    "Queues work from one agent (or manual) to another. The destination agent receives it on its next run; a critical handoff starts that run at once. Types named: research, draft, review, action.",
  input: v.strictObject({
    from: v.picklist(["manual", ...AGENT_IDS], "Must be an agent id or manual."),
    ...handoffFields,
  }),
  output: v.object({ ok: v.literal(true), handoffId: v.string() }),
  rest: { method: "POST", path: "/api/mcp/handoffs", access: writeAccess(), from: "body", tags: ["Handoffs"] },
  mcp: { name: "crew_create_handoff", title: "Create handoff", access: writeAccess(), annotations: writes },
  handler: async (ctx, input) => {
    const now = ctx.clock.now();
    const id = newId("hof", now);
    const orgId = ctx.principal.orgId;
    const statement = handoffInsertStatement({
      id,
      orgId,
      from: input.from,
      to: input.to,
      title: input.title,
      context: input.context ?? null,
      priority: input.priority,
      type: input.type ?? null,
      createdBy: ctx.principal.userId,
      createdAt: now,
    });
    await commit(
      ctx.db,
      [statement],
      [{ type: "handoff.created", orgId, handoffId: id, to: input.to, priority: input.priority, at: now }],
      ctx.events.emit,
    );
    return { ok: true as const, handoffId: id };
  },
});

const Impact = v.picklist(["low", "medium", "high"], "Must be one of low, medium, high.");

/** An insight's fields besides its author, shared with the run completion. */
export const insightFields = {
  title: Title,
  detail: v.optional(LongText),
  type: v.optional(v.picklist(INSIGHT_TYPES, `Must be one of ${INSIGHT_TYPES.join(", ")}.`), "insight"),
  impact: v.optional(Impact, "medium"),
};

export const postInsightOp = defineOperation({
  id: "postInsight",
  summary: "Post an insight to the feed",
  description:
    "Posts an insight to the shared intelligence feed; every agent reads the insights posted since its previous run. High-impact insights surface first in briefings.",
  input: v.strictObject({
    ...insightFields,
    agent: v.optional(v.picklist(["manual", ...AGENT_IDS], "Must be an agent id or manual."), "manual"),
  }),
  output: v.object({ ok: v.literal(true), insightId: v.string() }),
  rest: { method: "POST", path: "/api/mcp/feed", access: writeAccess(), from: "body", tags: ["Feed"] },
  mcp: { name: "crew_post_insight", title: "Post insight", access: writeAccess(), annotations: writes },
  handler: async (ctx, input) => {
    const now = ctx.clock.now();
    const id = newId("ins", now);
    const orgId = ctx.principal.orgId;
    const statement = insightInsertStatement({
      id,
      orgId,
      agent: input.agent,
      title: input.title,
      detail: input.detail ?? null,
      type: input.type,
      impact: input.impact,
      createdBy: ctx.principal.userId,
      createdAt: now,
    });
    await commit(ctx.db, [statement], [{ type: "insight.created", orgId, insightId: id, impact: input.impact, at: now }], ctx.events.emit);
    return { ok: true as const, insightId: id };
  },
});
