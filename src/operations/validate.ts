/**
 * Valibot validation → the `issues` of a 400, naming every offending field. The door's
 * (operations/invoke.ts), whichever projection renders the refusal: the REST envelope, a tool
 * error, a form's field errors.
 */
import * as v from "valibot";
import { ApiError, type FieldIssue } from "../errors.ts";

/** `actions[3].priority`: dots between keys, brackets around array indexes. */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** strictObject reports an unknown key as "expected never". */
const isUnknownKey = (issue: v.BaseIssue<unknown>) => issue.kind === "schema" && issue.expected === "never";

function describe(issue: v.BaseIssue<unknown>): string {
  if (isUnknownKey(issue)) return "Unknown field.";
  if (issue.type === "strict_object" && issue.input === undefined) return "Required.";
  if (issue.input === undefined && issue.received === "undefined") return "Required.";
  // null is never a value here (README "Decisions"): say so, or "Must be a string." puzzles.
  if (issue.input === null) return `${issue.message} Got null: leave an optional field out instead.`;
  return issue.message;
}

export function toFieldIssues(issues: readonly v.BaseIssue<unknown>[]): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    const path = issuePath(issue) || "(body)";
    const message = describe(issue);
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  return out;
}

/** `actions[2].x` before `actions[10].a`: the order the fields appear in, for arrays at least. */
const byPath = (a: v.BaseIssue<unknown>, b: v.BaseIssue<unknown>) => issuePath(a).localeCompare(issuePath(b), "en", { numeric: true });

/**
 * Every issue of `input`, unknown fields included. valibot's strictObject stops at the first
 * unknown key of an object, so the unknown keys found are taken out of a copy and it is judged
 * again until none is left (src/docs/notes/rest-api.md#errors: `issues` names every offending field).
 */
export function validationIssues(
  schema: v.GenericSchema,
  input: unknown,
  first: readonly v.BaseIssue<unknown>[] = v.safeParse(schema, input, { abortEarly: false }).issues ?? [],
): v.BaseIssue<unknown>[] {
  if (!first.some(isUnknownKey)) return [...first];
  let current: unknown;
  try {
    current = structuredClone(input);
  } catch {
    return [...first]; // nested too deeply to copy: the first unknown key of each object is named
  }
  const unknown: v.BaseIssue<unknown>[] = [];
  // Bounded: each round removes at least one key from the copy.
  for (let round = 0; round < 100; round++) {
    const result = v.safeParse(schema, current, { abortEarly: false });
    if (result.success) return unknown.sort(byPath);
    const found = result.issues.filter(isUnknownKey);
    const others = result.issues.filter((i) => !isUnknownKey(i));
    unknown.push(...found);
    let removed = false;
    for (const issue of found) {
      const last = issue.path?.[issue.path.length - 1] as { input?: unknown; key?: unknown } | undefined;
      const holder = last?.input as Record<string, unknown> | undefined;
      if (holder && typeof holder === "object" && Object.hasOwn(holder, String(last?.key))) {
        delete holder[String(last?.key)];
        removed = true;
      }
    }
    if (!removed) return [...others, ...unknown.sort(byPath)];
  }
  return unknown.sort(byPath);
}

export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, what = "request"): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  const issues = toFieldIssues(validationIssues(schema, input, result.issues));
  const fields = issues.map((i) => i.path).join(", ");
  throw new ApiError(400, "invalid_request", `The ${what} is invalid: ${fields}.`, { issues });
}
