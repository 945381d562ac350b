/**
 * The hourly request quota per principal (src/docs/notes/access.md#quota): fixed windows aligned to the hour, counted in
 * the database so several processes share one exact count. Every protected response carries the
 * X-RateLimit-* headers; a refused one also Retry-After.
 *
 * Exactness comes from the store (store/quota/quota.ts): every take is one atomic conditional upsert,
 * so no process can admit beyond the limit, and nothing is reserved ahead (a process holding
 * unused units would make another refuse requests that fit). Speed comes from coalescing the
 * takes one process receives in the same turn into one statement, on a prepared statement.
 */
import { HOUR } from "../lib/clock.ts";
import type { QuotaStore } from "../store/quota/quota.ts";

export interface QuotaDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  retryAfter: number;
}

/** Takes `units` (1 per request; a JSON-RPC batch takes one per request it holds), all or none. */
export async function consumeQuota(quota: QuotaStore, userId: string, limit: number, now: number, units = 1): Promise<QuotaDecision> {
  const windowStart = Math.floor(now / HOUR) * HOUR;
  const resetMs = windowStart + HOUR;
  const used = units === 1 ? await quota.take(userId, windowStart, limit) : await quota.takeMany(userId, windowStart, limit, units);
  return {
    allowed: used !== null,
    limit,
    remaining: used === null ? 0 : Math.max(0, limit - used),
    reset: Math.ceil(resetMs / 1000),
    retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
  };
}

export function quotaHeaders(q: QuotaDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(q.limit),
    "X-RateLimit-Remaining": String(q.remaining),
    "X-RateLimit-Reset": String(q.reset),
  };
  if (!q.allowed) headers["Retry-After"] = String(q.retryAfter);
  return headers;
}
