/**
 * Small models welcome (src/docs/notes/prompt-injection.md#small-models): the JSON of an answer
 * wrapped in code fences or after a sentence ("Sure! Here is …") is taken out before validation,
 * and enum values match case-insensitively and through a short synonym list (`urgent` →
 * `critical`, `follow-up` → `follow_up`). What was repaired is noted, so the run can say so.
 */
import type { JsonSchema } from "./schema-prompt.ts";

/** Words small models use for the answer's enum values. */
const SYNONYMS: Record<string, string[]> = {
  critical: ["urgent", "blocker", "highest", "very_high", "p0", "asap"],
  high: ["important", "p1", "elevated"],
  medium: ["normal", "moderate", "default", "p2", "med"],
  low: ["minor", "lowest", "p3", "trivial"],
  follow_up: ["followup", "follow", "reply", "respond"],
  task: ["todo", "to_do", "action", "work"],
  approval: ["approve", "sign_off", "signoff", "decision"],
  insight: ["observation", "finding", "info", "information"],
  alert: ["warning", "risk"],
};

const key = (value: string) =>
  value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

/** The JSON object a text holds: the whole text, else inside a ```json fence, else from its first `{` to its last `}`. */
export function extractJson(text: string): { value: unknown; repaired: string | null } | null {
  const tryParse = (s: string) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return undefined;
    }
  };
  const whole = tryParse(text.trim());
  if (whole !== undefined) return { value: whole, repaired: null };
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(text);
  const inFence = fenced?.[1] !== undefined ? tryParse(fenced[1].trim()) : undefined;
  if (inFence !== undefined) return { value: inFence, repaired: "took the JSON out of a code fence" };
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  const inside = start >= 0 && end > start ? tryParse(text.slice(start, end + 1)) : undefined;
  if (inside !== undefined) return { value: inside, repaired: "took the JSON out of the text around it" };
  return null;
}

/** The value with enum strings matched case-insensitively and by synonym; `notes` gains one line per value changed. */
export function matchEnums(value: unknown, schema: JsonSchema | undefined, notes: string[], path = ""): unknown {
  if (!schema) return value;
  if (schema.enum && typeof value === "string" && !schema.enum.includes(value)) {
    const options = schema.enum.filter((e): e is string => typeof e === "string");
    const wanted = key(value);
    const found = options.find((o) => key(o) === wanted) ?? options.find((o) => SYNONYMS[o]?.includes(wanted));
    if (found) {
      notes.push(`${path || "(the answer)"}: "${value}" read as "${found}"`);
      return found;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item, i) => matchEnums(item, schema.items, notes, `${path}[${i}]`));
  if (value && typeof value === "object" && schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = matchEnums(v, schema.properties[k], notes, path ? `${path}.${k}` : k);
    return out;
  }
  return value;
}
