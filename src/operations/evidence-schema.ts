/** The evidence of a record a run wrote (src/docs/notes/model.md), as the REST and MCP documents show it. */
import * as v from "valibot";
import { EVIDENCE_KINDS, TRUST_LEVELS } from "../domain.ts";
import { maxChars } from "./schemas.ts";

export const EvidenceItem = v.object({
  kind: v.picklist(EVIDENCE_KINDS),
  ref: v.pipe(v.string(), v.description("The input: a Crew record id, a mail's Message-ID, a feed item's GUID or link, …")),
  title: v.pipe(
    v.string(),
    v.description("What a person recognizes: the mail's subject and sender, the item's title, the contact's name."),
  ),
  url: v.optional(v.pipe(v.string(), v.description("Where a person can open it: the feed item's link, or Crew's own page."))),
  excerpt: v.optional(v.pipe(v.string(), v.description("At most 300 characters of the input's text."))),
  trust: v.optional(
    v.pipe(
      v.picklist(TRUST_LEVELS),
      v.description(
        "internal: the organization's own people or data; external: from outside (other senders, feeds, invitations, chat, triggers, or a record written from those).",
      ),
    ),
  ),
});
export const EvidenceList = v.pipe(v.array(EvidenceItem), v.description("What it rests on (empty for records a person wrote)."));

const given = (max: number) =>
  v.pipe(
    v.string("Must be a string."),
    v.trim(),
    v.minLength(1, "Must not be empty."),
    maxChars(max, `Must be at most ${max} characters.`),
  );

/**
 * Evidence as an external runner sends it on its completion: the shape above, bounded. A ref of a
 * Crew record kind (contact, action, insight, handoff, suggestion) must name a record of the
 * organization; the completion checks that before storing anything.
 */
export const EvidenceInput = v.pipe(
  v.array(
    v.strictObject({
      kind: v.picklist(EVIDENCE_KINDS, `Must be one of ${EVIDENCE_KINDS.join(", ")}.`),
      ref: v.pipe(
        given(500),
        v.description("A Crew record id (con_…, act_…, ins_…, hof_…, sug_…), a Message-ID, a feed item's GUID or link, …"),
      ),
      title: given(300),
      url: v.optional(
        v.pipe(
          v.string("Must be a string."),
          v.url("Must be an http(s) URL."),
          v.regex(/^https?:\/\//i, "Must be an http(s) URL."),
          maxChars(2000, "Must be at most 2000 characters."),
        ),
      ),
      excerpt: v.optional(v.pipe(v.string("Must be a string."), maxChars(300, "Must be at most 300 characters."))),
      trust: v.optional(
        v.pipe(
          v.picklist(TRUST_LEVELS, "Must be internal or external."),
          v.description(
            "Where a mail, feed item, event or message came from; default external. Crew decides it for Crew records (their stored provenance).",
          ),
        ),
      ),
    }),
    "Must be an array of evidence items.",
  ),
  v.maxLength(20, "Must hold at most 20 items."),
  v.description("What it rests on: {kind, ref, title, url?, excerpt?} per input."),
);

/** What every record a run may write shows of the write policy (src/docs/notes/prompt-injection.md). */
export const ProvenanceField = v.pipe(
  v.picklist(TRUST_LEVELS),
  v.description("internal: every evidence item is the organization's own; external: it rests on outside input (From outside: …)."),
);
export const HeldReason = v.pipe(
  v.nullable(v.string()),
  v.description("Why it was held for an owner's review (its outside evidence shows signs of an attack); null when it never was."),
);
