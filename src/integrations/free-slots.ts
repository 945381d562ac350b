/**
 * Slot finding (crew_find_time): pure policy, no I/O. Given busy intervals, it proposes the
 * earliest open slots inside working hours, in the user's time zone.
 *
 * Decisions (README "Calendar"):
 * - Working days are Monday to Friday by default: weekends are skipped, like a human assistant
 *   would unless asked. The policy takes the days as a parameter.
 * - Working hours are wall-clock times in the zone, converted per day, so a DST change moves the
 *   UTC instants and never the local ones; a day whose hours cross a DST change is as long as it
 *   really is (01:00–04:00 on the spring-forward night is two hours).
 * - Slots are back to back (a 30-minute meeting in a free morning gives 09:00, 09:30, 10:00), start
 *   on a step of 15 minutes counted from the start of the working day (so "now" at 10:07 offers
 *   10:15, and the end of a meeting at 10:50 offers 11:00), and never start before `from`.
 * - A slot must not touch any busy interval except at its edges: a meeting ending at 10:00 leaves
 *   10:00 free.
 */
import { clockMinutes, compareDates, type LocalDate, localParts, nextDay, zonedInstant } from "./zoned-time.ts";

export interface Interval {
  /** Unix milliseconds, inclusive. */
  start: number;
  /** Unix milliseconds, exclusive. */
  end: number;
}

export interface SlotQuery {
  from: number;
  to: number;
  durationMs: number;
  workingHours: { start: string; end: string };
  timeZone: string;
  count: number;
  busy: readonly Interval[];
  /** 0 = Sunday … 6 = Saturday. Default Monday to Friday. */
  workingDays?: readonly number[];
  /** Slot starts fall on this step from the start of the working day. Default 15 minutes. */
  stepMs?: number;
}

export const WEEKDAYS: readonly number[] = [1, 2, 3, 4, 5];
const DEFAULT_STEP = 15 * 60_000;

/** Sorted, with overlapping and touching intervals joined. */
export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

export function findSlots(q: SlotQuery): Interval[] {
  const busy = mergeIntervals(q.busy);
  const step = q.stepMs ?? DEFAULT_STEP;
  const days = q.workingDays ?? WEEKDAYS;
  const startMinutes = clockMinutes(q.workingHours.start);
  const endMinutes = clockMinutes(q.workingHours.end);
  const slots: Interval[] = [];
  if (q.count <= 0 || q.to <= q.from) return slots;

  const lastDay = localParts(q.timeZone, q.to);
  let cursor = 0; // busy intervals before this index end before the current candidate
  for (let day: LocalDate = localParts(q.timeZone, q.from); compareDates(day, lastDay) <= 0; day = nextDay(day)) {
    const weekday = new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();
    if (!days.includes(weekday)) continue;
    const dayStart = zonedInstant(q.timeZone, day, Math.floor(startMinutes / 60), startMinutes % 60);
    const dayEnd = zonedInstant(q.timeZone, day, Math.floor(endMinutes / 60), endMinutes % 60);
    const windowEnd = Math.min(dayEnd, q.to);
    const onStep = (t: number) => dayStart + Math.ceil(Math.max(0, t - dayStart) / step) * step;
    let t = onStep(Math.max(dayStart, q.from));
    while (t + q.durationMs <= windowEnd) {
      while (cursor < busy.length && (busy[cursor]?.end ?? 0) <= t) cursor++;
      const next = busy[cursor];
      if (next && next.start < t + q.durationMs) {
        t = onStep(next.end);
        continue;
      }
      slots.push({ start: t, end: t + q.durationMs });
      if (slots.length >= q.count) return slots;
      t += q.durationMs;
    }
  }
  return slots;
}
