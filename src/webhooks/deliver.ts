/**
 * The webhook deliverer (SPEC §9): a background task that claims due outbox rows, POSTs each as
 * signed JSON, and records the outcome. Any 2xx acknowledges; anything else (another status, a
 * redirect — never followed —, a timeout, a refused connection) is retried after 5 s, 30 s, 2 min,
 * 10 min, 1 h and 6 h, then the delivery is `failed`. All state lives in the database, so a
 * restart loses nothing and several processes can run a deliverer on one database at once.
 */
import type { AppDeps, BackgroundTask } from "../deps.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../integrations/outbound.ts";
import { DAY, HOUR, MINUTE } from "../lib/clock.ts";
import { startLoop } from "../lib/loop.ts";
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  finishAttempt,
  pruneDeliveries,
  releaseClaim,
  webhookTargets,
} from "../store/webhooks.ts";
import { openWebhookSecret } from "./secret-at-rest.ts";
import { signedHeaders } from "./sign.ts";
import { UNREACHABLE_TARGET } from "./targets.ts";

/** Waits after attempt 1, 2, …, 6 fail; attempt 7 is the last. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A claim outlives the request timeout by far, so only a crashed process's claims expire. */
export const CLAIM_MS = 60_000;
export const REQUEST_TIMEOUT_MS = 10_000;
/** Delivered and failed deliveries are kept this long for GET /api/webhooks/{id}/deliveries, then pruned (hourly). */
export const RETENTION_MS = 30 * DAY;

export interface DelivererOptions {
  /** Rows claimed per statement (several rounds per tick while rows are due). */
  batchSize?: number;
  /** Claim rounds per tick at most, so one tick ends even under a flood. */
  maxRounds?: number;
  /** Aborts requests in flight (the task is stopping): their claims are given back untried. */
  signal?: AbortSignal;
}

export interface DeliveryReport {
  delivered: number;
  retrying: number;
  failed: number;
}

const short = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

function describeError(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `No response within ${REQUEST_TIMEOUT_MS / 1000} s.`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return short(`Request failed: ${e?.message ?? String(error)}${cause ? ` (${cause})` : ""}`);
}

/** One attempt: sign, send, classify. Never throws. */
async function attempt(
  deps: DelivererDeps,
  options: DelivererOptions,
  d: ClaimedDelivery,
  target: { url: string; secret: string },
): Promise<AttemptOutcome | "released"> {
  let httpStatus: number | null = null;
  let error: string | null = null;
  let secret: string;
  try {
    secret = await openWebhookSecret(deps.config, d.webhookId, target.secret);
  } catch {
    deps.log.warn("webhook secret does not open", { webhook: d.webhookId });
    return {
      status: "failed",
      httpStatus: null,
      error: "The signing secret cannot be decrypted (was CREW_SECRET changed?); create the webhook again.",
    };
  }
  try {
    // Through the outbound policy (SPEC §16): a refused target looks like an unreachable one to the
    // subscriber (and is retried like one: DNS may change); the log says which.
    const res = await outboundFetch(deps.outbound, target.url, {
      method: "POST",
      headers: signedHeaders(secret, d.eventId, deps.clock.now(), d.payload),
      body: d.payload,
      redirect: "manual",
      maxRedirects: 0,
      timeoutMs: REQUEST_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    httpStatus = res.status;
    await res.body?.cancel().catch(() => {}); // the answer's body is not read: free the connection
    if (res.status >= 200 && res.status < 300) return { status: "delivered", httpStatus };
    error = res.status >= 300 && res.status < 400 ? "Redirects are not followed; use the final URL." : `HTTP ${res.status}.`;
  } catch (caught) {
    if (options.signal?.aborted) return "released";
    if (caught instanceof OutboundRefused || caught instanceof OutboundFailed) {
      deps.log.info("webhook target not reached", {
        webhook: d.webhookId,
        refused: caught instanceof OutboundRefused,
        reason: caught.reason,
      });
      error = UNREACHABLE_TARGET;
    } else error = describeError(caught);
  }
  const delay = RETRY_DELAYS_MS[d.attempt - 1];
  return delay === undefined
    ? { status: "failed", httpStatus, error }
    : { status: "pending", httpStatus, error, nextAttemptAt: deps.clock.now() + delay };
}

/** One pass: deliver every delivery due now (tests call this with a ManualClock). */
/** What a deliverer pass needs. */
export type DelivererDeps = Pick<AppDeps, "db" | "clock" | "log" | "config" | "outbound"> & Partial<Pick<AppDeps, "metrics">>;

export async function deliverDue(deps: DelivererDeps, options: DelivererOptions = {}): Promise<DeliveryReport> {
  const report: DeliveryReport = { delivered: 0, retrying: 0, failed: 0 };
  const batchSize = options.batchSize ?? 20;
  for (let round = 0; round < (options.maxRounds ?? 10) && !options.signal?.aborted; round++) {
    const now = deps.clock.now();
    const claimed = await claimDueDeliveries(deps.db, now, now + CLAIM_MS, batchSize);
    if (claimed.length === 0) break;
    const targets = await webhookTargets(deps.db, [...new Set(claimed.map((d) => d.webhookId))]);
    await Promise.all(
      claimed.map(async (d) => {
        const target = targets.get(d.webhookId);
        // Deleting a subscription deletes its outbox rows too; a row left without one is closed, not retried.
        const outcome = target
          ? await attempt(deps, options, d, target)
          : { status: "failed" as const, httpStatus: null, error: "The subscription no longer exists." };
        if (outcome === "released") return releaseClaim(deps.db, d, deps.clock.now());
        if (!(await finishAttempt(deps.db, d, outcome, deps.clock.now()))) return;
        const result = outcome.status === "delivered" ? "delivered" : outcome.status === "pending" ? "retrying" : "failed";
        report[result] += 1;
        deps.metrics?.webhookDelivery(result);
        if (outcome.status !== "delivered") {
          deps.log.warn("webhook delivery failed", {
            webhook: d.webhookId,
            event_id: d.eventId,
            attempt: d.attempt,
            status: outcome.httpStatus,
            error: outcome.error,
            final: outcome.status === "failed",
          });
        }
      }),
    );
    if (claimed.length < batchSize) break;
  }
  return report;
}

/**
 * The background task: a pass every `intervalMs`, and one at once after any domain event (a new
 * action's outbox rows are committed before its event is emitted). Passes never overlap.
 */
export function webhookDeliveryTask(options: DelivererOptions & { intervalMs?: number } = {}): BackgroundTask {
  return {
    name: "webhook-deliverer",
    start(deps) {
      let prunedAt = Number.NEGATIVE_INFINITY;
      const loop = startLoop(
        async (signal) => {
          const report = await deliverDue(deps, { ...options, signal });
          // Background passes that did something are logged at info (SPEC §14).
          if (report.delivered + report.retrying + report.failed > 0) deps.log.info("webhook delivery pass", { ...report });
          if (deps.clock.now() - prunedAt >= HOUR) {
            prunedAt = deps.clock.now();
            await pruneDeliveries(deps.db, prunedAt - RETENTION_MS);
          }
        },
        {
          intervalMs: options.intervalMs ?? 1000,
          onError: (error) => deps.log.error("webhook delivery pass failed", { error: String(error) }),
        },
      );
      const off = deps.events.on(() => void loop.run());
      void loop.run();
      return {
        async stop() {
          off();
          await loop.stop();
        },
      };
    },
  };
}
