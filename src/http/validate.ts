/** Valibot validation → the `issues` of a 400 envelope, naming every offending field. */
import * as v from "valibot";
import { ApiError, type FieldIssue } from "./errors.ts";

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

function describe(issue: v.BaseIssue<unknown>): string {
  // strictObject reports an unknown key as "expected never": say what it means instead.
  if (issue.kind === "schema" && issue.expected === "never") return "Unknown field.";
  if (issue.type === "strict_object" && issue.input === undefined) return "Required.";
  if (issue.input === undefined && issue.received === "undefined") return "Required.";
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

export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, what = "request"): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  const issues = toFieldIssues(result.issues);
  const fields = issues.map((i) => i.path).join(", ");
  throw new ApiError(400, "invalid_request", `The ${what} is invalid: ${fields}.`, { issues });
}
