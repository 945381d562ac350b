/**
 * valibot → JSON Schema 2020-12 (the dialect of OpenAPI 3.1), from the very schemas the server
 * validates with. Transforms and checks that JSON Schema cannot express (trim, cross-field
 * checks) are skipped: the server stays the judge, the schema describes the shape.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { AnySchema } from "../operations/registry.ts";

export type JsonSchema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  description?: string;
  $ref?: string;
};

/** `input`: what a client may send (defaults make fields optional); `output`: what the server returns. */
export function jsonSchemaOf(schema: AnySchema, mode: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode: mode,
    errorMode: "ignore",
  }) as JsonSchema;
  return rest;
}

/** The object forms of a schema: itself, or each branch of a union of objects. */
export function objectForms(schema: JsonSchema): JsonSchema[] {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.flatMap(objectForms);
  return schema.type === "object" || schema.properties ? [schema] : [];
}

/** The schema without the named properties (path parameters, which travel in the URL instead). */
export function withoutProperties(schema: JsonSchema, names: string[]): JsonSchema {
  if (names.length === 0) return schema;
  const branches = schema.anyOf ? "anyOf" : schema.oneOf ? "oneOf" : null;
  if (branches) return { ...schema, [branches]: (schema[branches] as JsonSchema[]).map((b) => withoutProperties(b, names)) };
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => !names.includes(name)));
  const required = (schema.required ?? []).filter((name) => !names.includes(name));
  return { ...schema, properties, required };
}

/** `/api/mcp/actions/{id}` → `["id"]`. */
export const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
