/**
 * A five-field cron schedule in a person's words ("every day at 08:00 and 18:00", "Monday to
 * Friday at 07:00", "every hour at :20"), for pages that must not show raw cron. Covers the shapes
 * the agents' schedules use (fixed minutes and hours, lists, ranges, steps, any weekday set); any
 * other shape is called "a custom schedule" and the exact expression stays in the edit form.
 */
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A comma list of numbers and ranges ("1-5", "1,4"), or null when the field uses other syntax. */
function numbers(field: string, min: number, max: number): number[] | null {
  const out: number[] = [];
  for (const part of field.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return null;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < min || to > max || from > to) return null;
    for (let n = from; n <= to; n++) out.push(n);
  }
  return out;
}

/** "a", "a and b", "a, b and c". */
export function listWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

function dayWords(field: string): string | null {
  if (field === "*") return "every day";
  const days = numbers(field, 0, 7);
  if (!days) return null;
  const set = [...new Set(days.map((d) => d % 7))].sort((a, b) => a - b);
  if (set.join() === "1,2,3,4,5") return "Monday to Friday";
  if (set.join() === "0,6") return "on weekends";
  if (set.length === 7) return "every day";
  return `every ${listWords(set.map((d) => DAYS[d] as string))}`;
}

const two = (n: number) => String(n).padStart(2, "0");

export function cronWords(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  const custom = "on a custom schedule";
  if (fields.length !== 5) return custom;
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  if (dom !== "*" || month !== "*") return custom;
  const days = dayWords(dow);
  const minutes = numbers(minute, 0, 59);
  if (!days || !minutes) {
    const step = /^\*\/(\d+)$/.exec(minute);
    return step && hour === "*" && days === "every day" ? `every ${step[1]} minutes` : custom;
  }
  if (hour === "*") {
    const at = listWords(minutes.map((m) => `:${two(m)}`));
    return `every hour at ${at}${days === "every day" ? "" : `, ${days}`}`;
  }
  const hours = numbers(hour, 0, 23);
  if (!hours) return custom;
  const times = hours.flatMap((h) => minutes.map((m) => `${two(h)}:${two(m)}`));
  return `${days} at ${listWords(times)}`;
}
