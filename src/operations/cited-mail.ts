/**
 * Crew's own view of a mail a record cites (src/docs/notes/web-app.md#evidence-you-can-open): the
 * subject, the sender, the text excerpt stored with the evidence and the provider's link where the
 * evidence has one, read from the record's own evidence, so a person sees exactly what the agent
 * saw and nobody reads a mail no record of the organization cites. An operation of the web app
 * only (REST and MCP already carry the evidence inline on each record), in the registry so the
 * organization's boundary and the input's rules are said once.
 */
import * as v from "valibot";
import { notFound } from "../errors.ts";
import { iso } from "../lib/clock.ts";
import { findCitingRecord } from "../store/cited.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

/** The mail's title as the inbox agent stores it, "subject — sender" (src/agents/model-inputs.ts): split at the last dash. */
export function subjectAndSender(title: string): { subject: string; from: string | null } {
  const at = title.lastIndexOf(" — ");
  return at > 0 ? { subject: title.slice(0, at), from: title.slice(at + 3) } : { subject: title, from: null };
}

export const getCitedMailOp = defineOperation({
  id: "getCitedMail",
  summary: "A mail cited as evidence",
  description:
    "The mail one record (suggestion, action, insight or handoff) cites: subject, sender, the excerpt stored with the evidence, the provider's link if any, and the record.",
  input: v.strictObject({
    record: v.pipe(
      v.string("Must be a record id."),
      v.regex(/^(sug|act|ins|hof)_\w{1,60}$/, "Must be the id of a suggestion, action, insight or handoff."),
    ),
    ref: v.pipe(
      v.string("Must be the mail's Message-ID."),
      v.minLength(1, "Must be the mail's Message-ID."),
      v.maxLength(500, "Must be at most 500 characters."),
    ),
  }),
  output: v.object({
    subject: v.string(),
    from: v.nullable(v.string()),
    excerpt: v.nullable(v.string()),
    url: v.nullable(v.string()),
    record: v.object({
      kind: v.picklist(["suggestion", "action", "insight", "handoff"]),
      id: v.string(),
      title: v.string(),
      createdAt: DateTime,
    }),
  }),
  handler: async (ctx, input) => {
    const record = await findCitingRecord(ctx.db, ctx.principal.orgId, input.record);
    const mail = record?.evidence.find((e) => e.kind === "mail" && e.ref === input.ref);
    if (!record || !mail) throw notFound("The cited mail");
    return {
      ...subjectAndSender(mail.title),
      excerpt: mail.excerpt ?? null,
      url: mail.url ?? null,
      record: { kind: record.kind, id: record.id, title: record.title, createdAt: iso(record.createdAt) },
    };
  },
});
