/**
 * The model's words last (src/docs/notes/model.md): a regeneration after a write keeps the day's model-written
 * standup or briefing text and adds composed sentences saying what changed since the model wrote
 * it. The stored body carries the model's text, when it was written and the open actions it saw,
 * so each regeneration starts again from the model's own words instead of piling sentences up.
 */
import { DAY } from "../lib/clock.ts";
import { mentions } from "./policy/words-check.ts";

export interface ModelText {
  text: string;
  /** When the model wrote it (epoch ms). */
  at: number;
  /** The open actions the model was shown, so the sentences name only what came after. */
  actionIds: string[];
  /** The actions the text names (policy/words-check.ts `mentions`): closed, dismissed or held, the text is dropped. */
  named?: string[];
}

interface OpenAction {
  id: string;
  title: string;
  priority: string;
}

/**
 * The model's text of an earlier body, when it was written on the same UTC day as `now` (reports
 * are kept one per day) and every action it names is still open (src/docs/notes/prompt-injection.md#words:
 * a dismissed fraud must not stay "top priority" in the kept words).
 */
export function sameDayWords(body: { words?: ModelText } | undefined, now: number, openIds?: ReadonlySet<string>): ModelText | null {
  const words = body?.words;
  if (!words || Math.floor(words.at / DAY) !== Math.floor(now / DAY)) return null;
  if (openIds && words.named?.some((id) => !openIds.has(id))) return null;
  return words;
}

/** The open actions a text names. */
export const namedActions = (text: string, open: readonly { id: string; title: string }[]) =>
  open.filter((a) => mentions(text, a.title)).map((a) => a.id);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function clockTime(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(at));
}

/**
 * "Since 08:03: 1 new critical action — Payment provider is down; 1 action closed." — or "" when
 * nothing changed. Critical and high actions are named, the rest counted.
 */
export function sinceThenSentence(words: ModelText, open: OpenAction[], timeZone = "UTC"): string {
  const seen = new Set(words.actionIds);
  const fresh = open.filter((a) => !seen.has(a.id));
  const stillOpen = new Set(open.map((a) => a.id));
  const closed = words.actionIds.filter((id) => !stillOpen.has(id)).length;
  const parts: string[] = [];
  for (const priority of ["critical", "high"]) {
    const these = fresh.filter((a) => a.priority === priority);
    if (these.length)
      parts.push(`${these.length} new ${priority} ${these.length === 1 ? "action" : "actions"} — ${these.map((a) => a.title).join("; ")}`);
  }
  const others = fresh.filter((a) => a.priority !== "critical" && a.priority !== "high").length;
  if (others) parts.push(plural(others, fresh.length > others ? "other new action" : "new action"));
  if (closed) parts.push(`${plural(closed, "action")} closed`);
  return parts.length ? `Since ${clockTime(words.at, timeZone)}: ${parts.join("; ")}.` : "";
}

/** The text to store: the model's own words followed by what changed since, when anything did. */
export function lastingText(words: ModelText, open: OpenAction[], timeZone?: string): string {
  const since = sinceThenSentence(words, open, timeZone);
  return since ? `${words.text} ${since}` : words.text;
}
