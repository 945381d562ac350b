/**
 * The answer's schema, for the model (src/docs/notes/model.md): as JSON Schema for the
 * provider's structured output, and in words for the prompt, since many OpenAI-compatible servers
 * ignore `response_format` (field names, allowed values, which fields are required, bounds).
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  description?: string;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minimum?: number;
  format?: string;
  additionalProperties?: boolean | JsonSchema;
};

export function answerJsonSchema(schema: v.GenericSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { errorMode: "ignore" }) as JsonSchema & { $schema?: string };
  return rest;
}

function typeOf(s: JsonSchema): string {
  if (s.enum) return `one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`;
  if (s.type === "array")
    return `array${s.maxItems !== undefined ? ` of at most ${s.maxItems}` : ""} of ${s.items ? typeOf(s.items) : "values"}`;
  if (s.type === "object") return "object";
  const bounds = [
    s.minLength ? "not empty" : "",
    s.maxLength !== undefined ? `at most ${s.maxLength} characters` : "",
    s.minimum !== undefined ? `≥ ${s.minimum}` : "",
    s.format ? s.format : "",
  ].filter(Boolean);
  return `${String(s.type ?? "value")}${bounds.length ? ` (${bounds.join(", ")})` : ""}`;
}

function lines(s: JsonSchema, indent: string): string[] {
  const object = s.type === "array" ? s.items : s;
  if (!object?.properties) return [];
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties).flatMap(([name, p]) => [
    `${indent}- "${name}" (${required.has(name) ? "required" : "optional"}): ${typeOf(p)}${p.description ? ` — ${p.description}` : ""}`,
    ...lines(p.type === "array" ? (p.items ?? {}) : p, `${indent}  `),
  ]);
}

/** The schema in words: one line per field, nested fields indented under their parent. */
export function describeAnswer(schema: JsonSchema): string {
  return ["Answer with exactly one JSON object (no prose, no code fences) with these fields and no others:", ...lines(schema, "")].join(
    "\n",
  );
}
