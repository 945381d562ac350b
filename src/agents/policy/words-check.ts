/**
 * The model's words are checked too (src/docs/notes/prompt-injection.md#words): the standup,
 * briefing, pulse trend and profile text a model writes is refused when it holds a number, amount
 * or percentage that the run's inputs do not hold, or mentions an item that is held, dismissed or
 * closed, or links anywhere but Crew's own pages. A refused text falls back to the composed one.
 */
import { withoutForeignUrls } from "../handles.ts";
import { titleWords } from "./similarity.ts";

/** An item the text must not bring back: held for review, dismissed, or closed. */
export interface Unspeakable {
  title: string;
  why: "held" | "dismissed" | "closed";
}

// Amounts and figures: $48,000 · 12% · 3.5k · 1,234.50. Clock times (08:03) and ISO dates are taken out first.
const FIGURE = /([$€£¥])?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s?(%|k\b|m\b|million\b|thousand\b)?/gi;
const CLOCK = /\b\d{1,2}:\d{2}(?::\d{2})?\b/g;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?\b/g;

/** Every number in a text, as values (12, 48000, 3500); `k`/`million` multiplied out. */
export function figuresIn(text: string): { value: number; marked: boolean }[] {
  const out: { value: number; marked: boolean }[] = [];
  for (const m of text.replace(ISO_DATE, " ").replace(CLOCK, " ").matchAll(FIGURE)) {
    const whole = Number((m[2] ?? "").replace(/,/g, ""));
    const value = Number(`${whole}${m[3] ? `.${m[3]}` : ""}`);
    const unit = (m[4] ?? "").toLowerCase();
    const scale = unit === "k" || unit === "thousand" ? 1_000 : unit === "m" || unit === "million" ? 1_000_000 : 1;
    out.push({ value: value * scale, marked: Boolean(m[1] || unit) });
  }
  return out;
}

/** The numbers the inputs hold: every number value and every figure inside their strings, and each date's parts. */
export function inputFigures(inputs: unknown): Set<number> {
  const found = new Set<number>();
  const visit = (value: unknown): void => {
    if (typeof value === "number" && Number.isFinite(value)) {
      found.add(value);
      found.add(Math.round(value));
    } else if (typeof value === "string") {
      for (const m of value.matchAll(/\d+(?:\.\d+)?/g)) found.add(Number(m[0]));
      for (const f of figuresIn(value)) found.add(f.value);
    } else if (Array.isArray(value)) {
      found.add(value.length);
      value.forEach(visit);
    } else if (value && typeof value === "object") Object.values(value).forEach(visit);
  };
  visit(inputs);
  return found;
}

/** Small bare counts ("two", "3 items") need no source; amounts, percentages and larger figures do. */
const FREE_COUNT = 10;

/** Whether `text` names the item: its title, or most of its topic words (at least two). */
export function mentions(text: string, title: string): boolean {
  const words = titleWords(title).filter((w) => w.length > 2);
  if (words.length === 0) return false;
  const said = new Set(titleWords(text));
  const named = words.filter((w) => said.has(w)).length;
  return words.length === 1 ? named === 1 && words[0]!.length > 5 : named / words.length >= 0.6 && named >= 2;
}

export type WordsVerdict = { ok: true; text: string } | { ok: false; reason: string };

export function checkWords(
  text: string,
  context: { inputs: unknown; base: string; unspeakable: readonly Unspeakable[]; figures?: Set<number> },
): WordsVerdict {
  if (withoutForeignUrls(text, [], context.base) !== text) return { ok: false, reason: "it links to an address outside Crew" };
  const figures = context.figures ?? inputFigures(context.inputs);
  for (const f of figuresIn(text)) {
    if (!f.marked && Number.isInteger(f.value) && f.value <= FREE_COUNT) continue;
    if (!figures.has(f.value)) return { ok: false, reason: `it states a figure (${f.value.toLocaleString("en-US")}) that no input holds` };
  }
  for (const item of context.unspeakable) {
    if (mentions(text, item.title)) return { ok: false, reason: `it mentions an item that is ${item.why} ("${item.title.slice(0, 80)}")` };
  }
  return { ok: true, text };
}
