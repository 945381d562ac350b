/**
 * Reads the web app needs beside the reports (src/docs/notes/web-app.md): contacts (also REST, the twin of the
 * upsert), the insight feed and handoffs (web only for now: no REST or MCP projection).
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { AGENT_IDS } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { iso } from "../lib/clock.ts";
import { type ContactCursor, listContacts } from "../store/contacts/contacts.ts";
import { listHandoffs } from "../store/feed/handoffs.ts";
import { listRecentInsights } from "../store/feed/insights.ts";
import { EvidenceList, HeldReason, ProvenanceField } from "./evidence-schema.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, PageLimit } from "./schemas.ts";

const Cursor = v.optional(
  v.pipe(
    v.string("Not a cursor returned by this endpoint."),
    v.minLength(1, "Not a cursor returned by this endpoint; omit it for the first page."),
    v.maxLength(400, "Not a cursor returned by this endpoint."),
  ),
);

const badCursor = () =>
  new ApiError(400, "invalid_request", "The cursor is invalid; pass the nextCursor of a previous page.", {
    issues: [{ path: "cursor", message: "Not a cursor returned by this endpoint." }],
  });

const encodeContactCursor = (c: ContactCursor) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify([c.nameKey, c.id])));

function decodeContactCursor(cursor: string): ContactCursor {
  try {
    const [nameKey, id] = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(cursor)));
    if (typeof nameKey === "string" && typeof id === "string" && /^con_[0-9A-Z]{26}$/.test(id)) return { nameKey, id };
  } catch {}
  throw badCursor();
}

export const Contact = v.object({
  id: v.string(),
  name: v.string(),
  email: v.nullable(v.string()),
  company: v.nullable(v.string()),
  role: v.nullable(v.string()),
  relationship: v.string(),
  notes: v.nullable(v.string()),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const listContactsOp = defineOperation({
  id: "listContacts",
  summary: "List contacts",
  description:
    "The organization's contacts in name order, optionally searched by name, email or company (q, case-insensitive), paginated with nextCursor. Use it to find a contact's id before linking an action to it.",
  input: v.strictObject({
    q: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200, "Must be at most 200 characters."))),
    limit: PageLimit(50),
    cursor: Cursor,
  }),
  output: v.object({ contacts: v.array(Contact), nextCursor: v.nullable(v.string()) }),
  rest: { method: "GET", path: "/api/mcp/contacts", access: writeAccess("read"), from: "query", tags: ["Contacts"] },
  handler: async (ctx, input) => {
    const after = input.cursor ? decodeContactCursor(input.cursor) : null;
    const page = await listContacts(ctx.db, ctx.principal.orgId, input.q || undefined, input.limit, after);
    return {
      contacts: page.contacts.map((c) => ({ ...c, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt) })),
      nextCursor: page.next ? encodeContactCursor(page.next) : null,
    };
  },
});

export const Insight = v.object({
  id: v.string(),
  agent: v.string(),
  title: v.string(),
  detail: v.nullable(v.string()),
  type: v.string(),
  impact: v.picklist(["low", "medium", "high"]),
  createdAt: DateTime,
  evidence: EvidenceList,
  provenance: ProvenanceField,
  held: v.boolean(),
  heldReason: HeldReason,
});

export const listFeedOp = defineOperation({
  id: "listFeed",
  summary: "Insight feed",
  description: "The shared insight feed, newest first, paginated with nextCursor.",
  input: v.strictObject({ limit: PageLimit(30), cursor: Cursor }),
  output: v.object({ insights: v.array(Insight), nextCursor: v.nullable(v.string()) }),
  handler: async (ctx, input) => {
    if (input.cursor && !/^ins_[0-9A-Z]{26}$/.test(input.cursor)) throw badCursor();
    const page = await listRecentInsights(ctx.db, ctx.principal.orgId, input.limit, input.cursor ?? null);
    return { insights: page.insights.map((i) => ({ ...i, createdAt: iso(i.createdAt) })), nextCursor: page.next };
  },
});

export const HANDOFF_VIEWS = ["queued", "done", "failed"] as const;

export const Handoff = v.object({
  id: v.string(),
  from: v.string(),
  to: v.string(),
  title: v.string(),
  context: v.nullable(v.string()),
  priority: v.string(),
  type: v.nullable(v.string()),
  status: v.string(),
  createdAt: DateTime,
  updatedAt: DateTime,
  evidence: EvidenceList,
  provenance: ProvenanceField,
  held: v.boolean(),
  heldReason: HeldReason,
});

export const listHandoffsOp = defineOperation({
  id: "listHandoffs",
  summary: "Handoffs",
  description: "Handoffs between agents by status (queued includes those claimed by a run in progress), most urgent first.",
  input: v.strictObject({
    status: v.optional(v.picklist(HANDOFF_VIEWS, "Must be one of queued, done, failed."), "queued"),
    to: v.optional(v.picklist(AGENT_IDS, "Must be one of the 17 agent ids.")),
    limit: PageLimit(100),
  }),
  output: v.object({ handoffs: v.array(Handoff) }),
  handler: async (ctx, input) => {
    const rows = await listHandoffs(ctx.db, ctx.principal.orgId, { status: input.status, to: input.to }, input.limit);
    return { handoffs: rows.map((h) => ({ ...h, createdAt: iso(h.createdAt), updatedAt: iso(h.updatedAt) })) };
  },
});
