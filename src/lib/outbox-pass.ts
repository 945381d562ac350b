/**
 * One pass of an outbox deliverer (src/background/outbox.ts runs it for webhooks and messages):
 * claim due rows in bounded rounds (a claim lease of CLAIM_MS, so only a crashed process's claims
 * expire), hand them to the kind's `deliver`, and decide after a failure whether to retry (after
 * 5 s, 30 s, 2 min, 10 min, 1 h and 6 h) or give up. The claiming and recording are the kind's,
 * through injected functions, so this file holds only the schedule and the loop.
 */
import { HOUR, MINUTE } from "./clock.ts";

/** Waits after attempt 1, 2, …, 6 fail; attempt 7 is the last. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A claim outlives any request timeout by far, so only a crashed process's claims expire. */
export const CLAIM_MS = 60_000;

export interface PassReport {
  delivered: number;
  retrying: number;
  failed: number;
}

/** After a failed attempt: `failed` when it was the last (or retrying cannot help), else `pending` until the next try. */
export function afterFailure(
  attempt: number,
  now: number,
  permanent = false,
): { status: "failed" } | { status: "pending"; nextAttemptAt: number } {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return permanent || delay === undefined ? { status: "failed" } : { status: "pending", nextAttemptAt: now + delay };
}

export interface DrainOptions<Row> {
  now: () => number;
  claim: (now: number, claimUntil: number, limit: number) => Promise<Row[]>;
  /** Delivers one round of claimed rows and adds each recorded outcome to `report`. */
  deliver: (rows: Row[], report: PassReport) => Promise<void>;
  batchSize: number;
  maxRounds?: number;
  signal?: AbortSignal;
}

/** One pass: claim and deliver rounds of due rows until none is due (at most `maxRounds`, so a pass ends under a flood). */
export async function drainOutbox<Row>(options: DrainOptions<Row>): Promise<PassReport> {
  const report: PassReport = { delivered: 0, retrying: 0, failed: 0 };
  for (let round = 0; round < (options.maxRounds ?? 10) && !options.signal?.aborted; round++) {
    const now = options.now();
    const claimed = await options.claim(now, now + CLAIM_MS, options.batchSize);
    if (claimed.length === 0) break;
    await options.deliver(claimed, report);
    if (claimed.length < options.batchSize) break;
  }
  return report;
}
