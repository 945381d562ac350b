/** Field schemas shared by the operations: one definition per limit of src/docs/notes/rest-api.md#limits and enum there. */

import * as v from "valibot";
import { PRIORITIES } from "../domain.ts";
import { MAX_URL_LENGTH, urlProblem } from "../integrations/outbound-targets.ts";

export const Priority = v.picklist(PRIORITIES, "Must be one of critical, high, medium, low.");

/**
 * At most `max` characters, counted as Unicode code points (an emoji is one character, not two
 * UTF-16 units), which is also how JSON Schema's `maxLength` counts: the documents still say
 * `maxLength`, and a client that checks against them never sends what the server refuses.
 */
export function maxChars(max: number, message: string) {
  const check = v.check((s: string) => s.length <= max || [...s].length <= max, message);
  const action = v.maxLength<string, number, string>(max, message);
  return { ...action, "~run": (dataset, config) => check["~run"](dataset, config) } satisfies typeof action;
}

/** Titles and names: 1–200 characters after trimming. */
export const Title = v.pipe(
  v.string("Must be a string."),
  v.trim(),
  v.minLength(1, "Must not be empty."),
  maxChars(200, "Must be at most 200 characters."),
);

/** description, detail, context, notes: up to 5,000 characters. */
export const LongText = v.pipe(v.string("Must be a string."), maxChars(5000, "Must be at most 5000 characters."));

export const ShortText = (max: number) =>
  v.pipe(v.string("Must be a string."), v.trim(), maxChars(max, `Must be at most ${max} characters.`));

export const Email = v.pipe(
  v.string("Must be a string."),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254, "Must be at most 254 characters."),
  v.email("Must be a valid email address."),
);

export const DateTime = v.pipe(v.string(), v.isoTimestamp());

/** A page size: a whole number from 1 to 100 (src/docs/notes/rest-api.md), with the endpoint's default. */
export const PageLimit = (fallback: number) =>
  v.optional(
    v.pipe(
      v.number("Must be a whole number from 1 to 100."),
      v.integer("Must be a whole number from 1 to 100."),
      v.minValue(1, "Must be at least 1."),
      v.maxValue(100, "Must be at most 100."),
    ),
    fallback,
  );

/** A daily token cap (UTC day): a whole number from 1 to 1e9, or null for none; one rule for the organization's and an agent's. */
export const DailyTokens = (description: string) =>
  v.nullable(
    v.pipe(
      v.number("Must be a whole number or null."),
      v.integer("Must be a whole number."),
      v.minValue(1, "Must be at least 1."),
      v.maxValue(1_000_000_000, "Must be at most 1000000000."),
      v.description(description),
    ),
  );

/**
 * The one schema of an address Crew reaches for a user: a webhook, a Teams workflow, a feed, a
 * CalDAV server. The shape only (src/integrations/outbound-targets.ts `urlProblem`: absolute
 * http(s), no credentials, no fragment, at most 2000 characters), one message per field; whether
 * it may point at a private address needs the configuration and is judged by the handler
 * (src/docs/notes/outbound-requests.md). Each field adds its own description.
 */
export const PublicUrl = v.pipe(
  v.string("Must be a string."),
  v.trim(),
  maxChars(MAX_URL_LENGTH, `Must be at most ${MAX_URL_LENGTH} characters.`),
  v.url("Must be an absolute http:// or https:// URL."),
  // The scheme, credentials and fragment are judged only on a URL the checks above passed.
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed && !dataset.issues ? urlProblem(dataset.value) : null;
    if (problem) addIssue({ message: problem });
  }),
);
