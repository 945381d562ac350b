/**
 * Wall-clock time in an IANA time zone, with nothing but Intl (web standard, and the same zone
 * data on Node, Deno and Bun). Pure functions: instants are Unix milliseconds.
 */

export interface LocalDate {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
}

export interface LocalDateTime extends LocalDate {
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at the instant `ms`. */
export function localParts(timeZone: string, ms: number): LocalDateTime {
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  const year = fields.year ?? 1970;
  const month = fields.month ?? 1;
  const day = fields.day ?? 1;
  return {
    year,
    month,
    day,
    hour: (fields.hour ?? 0) % 24,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
  };
}

/** UTC offset of `timeZone` at the instant `ms`, in milliseconds (east of Greenwich positive). */
export function offsetMs(timeZone: string, ms: number): number {
  const p = localParts(timeZone, ms);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/**
 * The instant a wall-clock time happens in `timeZone`. Around a DST change a wall time may happen
 * twice (autumn: the earlier one is taken) or not at all (spring: it is moved forward by the gap,
 * 02:30 → 03:30), as calendar applications do.
 */
export function zonedInstant(timeZone: string, date: LocalDate, hour = 0, minute = 0): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  // Zone offsets a day before and after: no zone changes its offset twice within two days.
  const candidates = [wall - offsetMs(timeZone, wall - DAY_MS), wall - offsetMs(timeZone, wall + DAY_MS)];
  const valid = candidates.filter((t) => t + offsetMs(timeZone, t) === wall);
  if (valid.length > 0) return Math.min(...valid);
  return candidates[0] ?? wall;
}

/** The calendar day after `date` (month and year roll over). */
export function nextDay(date: LocalDate, days = 1): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export const compareDates = (a: LocalDate, b: LocalDate) => Date.UTC(a.year, a.month - 1, a.day) - Date.UTC(b.year, b.month - 1, b.day);

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** ISO 8601 with the zone's offset at that instant, e.g. `2026-11-23T09:00:00+01:00`. */
export function isoInZone(timeZone: string, ms: number): string {
  const p = localParts(timeZone, ms);
  const offsetMinutes = Math.round(offsetMs(timeZone, ms) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const offset = `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${offset}`;
}

/** "09:30" → minutes after midnight. */
export function clockMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(":");
  return Number(h) * 60 + Number(m);
}
