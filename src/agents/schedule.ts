/**
 * Agent schedules: five-field cron expressions (minute hour day month weekday) read in the
 * organization's time zone, parsed by croner. Pure: every answer is about the `now` it is given.
 */
import { Cron } from "croner";

function cron(expression: string, timeZone?: string): Cron {
  return new Cron(expression, { timezone: timeZone, paused: true, mode: "5-part" });
}

/** Why an expression is not a usable schedule, or null when it is one. */
export function scheduleProblem(expression: string): string | null {
  try {
    if (cron(expression).nextRun(new Date(0)) === null) return "It never fires.";
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^CronPattern: /, "");
  }
}

/** The latest slot of the schedule at or before `now` (looked for within the last 400 days), or null. */
export function latestSlot(expression: string, timeZone: string, now: number): number | null {
  try {
    // croner's previous runs exclude the reference itself: look from one second later, drop any slot after now.
    const slots = cron(expression, timeZone).previousRuns(2, new Date(now + 1000));
    const slot = slots.map((d) => d.getTime()).find((t) => t <= now);
    return slot !== undefined && slot > now - 400 * 86_400_000 ? slot : null;
  } catch {
    return null;
  }
}

/** The first slot of the schedule after `now`, or null. */
export function nextSlot(expression: string, timeZone: string, now: number): number | null {
  try {
    return cron(expression, timeZone).nextRun(new Date(now))?.getTime() ?? null;
  } catch {
    return null;
  }
}
