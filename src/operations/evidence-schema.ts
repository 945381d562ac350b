/** The evidence of a record a run wrote (SPEC §17), as the REST and MCP documents show it. */
import * as v from "valibot";
import { EVIDENCE_KINDS } from "../domain.ts";

export const EvidenceItem = v.object({
  kind: v.picklist(EVIDENCE_KINDS),
  ref: v.pipe(v.string(), v.description("The input: a Crew record id, a mail's Message-ID, a feed item's GUID or link, …")),
  title: v.pipe(
    v.string(),
    v.description("What a person recognizes: the mail's subject and sender, the item's title, the contact's name."),
  ),
  url: v.optional(v.pipe(v.string(), v.description("Where a person can open it: the feed item's link, or Crew's own page."))),
  excerpt: v.optional(v.pipe(v.string(), v.description("At most 300 characters of the input's text."))),
});
export const EvidenceList = v.pipe(v.array(EvidenceItem), v.description("What it rests on (empty for records a person wrote)."));
