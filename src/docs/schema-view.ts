/**
 * JSON Schema → rows a person can read (field, type, required, notes), and a minimal example
 * value for curl snippets. Only what the generated schemas use: objects, arrays, enums, anyOf
 * (nullable and alternative forms), $ref into the document's components.
 */
import type { JsonSchema } from "./json-schema.ts";

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  notes: string[];
}

export type Resolver = (ref: string) => JsonSchema | undefined;

export function deref(schema: JsonSchema, resolve: Resolver): JsonSchema {
  let s = schema;
  for (let i = 0; s.$ref && i < 10; i++) s = resolve(s.$ref) ?? {};
  if (s.allOf) {
    // Merge allOf parts (the per-status error schemas): properties and required add up.
    const merged: JsonSchema = { properties: {}, required: [] };
    for (const part of s.allOf.map((p) => deref(p, resolve))) {
      Object.assign(merged, { ...part, properties: merged.properties, required: merged.required });
      Object.assign(merged.properties ?? {}, part.properties);
      merged.required?.push(...(part.required ?? []).filter((r) => !merged.required?.includes(r)));
    }
    return merged;
  }
  return s;
}

const nonNull = (s: JsonSchema) => (s.anyOf ?? []).filter((b) => b.type !== "null");
const isNullable = (s: JsonSchema) => (s.anyOf ?? []).some((b) => b.type === "null");

export function typeLabel(schema: JsonSchema, resolve: Resolver): string {
  const s = deref(schema, resolve);
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) {
    const labels = [...new Set(nonNull(s).map((b) => typeLabel(b, resolve)))];
    return `${labels.join(" | ")}${isNullable(s) ? " | null" : ""}`;
  }
  if (s.type === "array") return `${s.items ? typeLabel(s.items, resolve) : "any"}[]`;
  if (Array.isArray(s.type)) return s.type.join(" | ");
  return s.type ?? "any";
}

function notesOf(s: JsonSchema): string[] {
  const notes: string[] = [];
  if (typeof s.description === "string") notes.push(s.description);
  if (s.enum) notes.push(`One of: ${s.enum.map((e) => `\`${String(e)}\``).join(", ")}.`);
  const items = s.type === "array" && s.items ? s.items : null;
  if (items?.enum) notes.push(`Each one of: ${items.enum.map((e) => `\`${String(e)}\``).join(", ")}.`);
  const range = (min: unknown, max: unknown, unit: string) => {
    const plural = (n: number) => (n === 1 ? unit.replace(/s$/, "") : unit);
    let note = "";
    if (typeof min === "number" && typeof max === "number") note = `${min}–${max}${plural(max)}.`;
    else if (typeof max === "number") note = `At most ${max}${plural(max)}.`;
    else if (typeof min === "number") note = `At least ${min}${plural(min)}.`;
    // The description may already say it.
    if (note && !notes[0]?.includes(note.slice(0, -1))) notes.push(note);
  };
  range(s.minLength, s.maxLength, " characters");
  range(s.minimum, s.maximum, "");
  range(s.minItems, s.maxItems, " items");
  if (typeof s.format === "string") notes.push(`Format: ${s.format}.`);
  if (s.default !== undefined) notes.push(`Default: \`${JSON.stringify(s.default)}\`.`);
  return notes;
}

/** The object's fields, nested ones as `parent.child` and `list[].child`. */
export function fieldRows(schema: JsonSchema, resolve: Resolver, prefix = ""): FieldRow[] {
  const s = deref(schema, resolve);
  const rows: FieldRow[] = [];
  for (const [name, raw] of Object.entries(s.properties ?? {})) {
    const prop = deref(raw, resolve);
    const inner = prop.anyOf && nonNull(prop).length === 1 ? deref(nonNull(prop)[0] ?? {}, resolve) : prop;
    const label = `${prefix}${name}`;
    rows.push({ name: label, type: typeLabel(prop, resolve), required: (s.required ?? []).includes(name), notes: notesOf(inner) });
    if (inner.properties) rows.push(...fieldRows(inner, resolve, `${label}.`));
    const items = inner.type === "array" && inner.items ? deref(inner.items, resolve) : null;
    if (items?.properties) rows.push(...fieldRows(items, resolve, `${label}[].`));
  }
  return rows;
}

/** Alternative object forms of a body (a union), else the schema itself. */
export function formsOf(schema: JsonSchema, resolve: Resolver): JsonSchema[] {
  const s = deref(schema, resolve);
  const branches = s.anyOf ?? s.oneOf;
  return branches?.every((b) => deref(b, resolve).properties) ? branches.map((b) => deref(b, resolve)) : [s];
}

/** A small valid-looking value: required fields only (or the first field when none is required). */
export function exampleOf(schema: JsonSchema, resolve: Resolver, depth = 0): unknown {
  const s = deref(schema, resolve);
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return exampleOf(nonNull(s)[0] ?? {}, resolve, depth);
  if (s.type === "array") return depth > 3 || !s.items ? [] : [exampleOf(s.items, resolve, depth + 1)];
  if (s.type === "integer" || s.type === "number") return (s.minimum as number | undefined) ?? 1;
  if (s.type === "boolean") return true;
  if (s.type === "string") return s.format === "email" ? "ada@example.com" : "text";
  if (s.properties && depth <= 3) {
    const names = Object.keys(s.properties);
    const wanted = s.required && s.required.length > 0 ? s.required : names.slice(0, 1);
    return Object.fromEntries(wanted.map((n) => [n, exampleOf(s.properties?.[n] ?? {}, resolve, depth + 1)]));
  }
  return null;
}
