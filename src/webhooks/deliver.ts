/**
 * The webhook deliverer (src/docs/notes/webhooks.md): a background task that claims due outbox rows, POSTs each as
 * signed JSON, and records the outcome. Any 2xx acknowledges; anything else (another status, a
 * redirect — never followed —, a timeout, a refused connection) is retried after 5 s, 30 s, 2 min,
 * 10 min, 1 h and 6 h, then the delivery is `failed`. The claim / backoff loop is the one outbox
 * deliverer of src/background/outbox.ts; this file says what one webhook attempt is.
 */

import type { AppDeps } from "../deps.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../integrations/outbound.ts";
import { UNREACHABLE_TARGET } from "../integrations/outbound-targets.ts";
import { afterFailure, drainOutbox, type PassReport } from "../lib/outbox-pass.ts";
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  finishAttempt,
  releaseClaim,
  webhookTargets,
} from "../store/delivery/webhooks.ts";
import { openWebhookSecret } from "./secret-at-rest.ts";
import { signedHeaders } from "./sign.ts";

export { CLAIM_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../lib/outbox-pass.ts";
export const REQUEST_TIMEOUT_MS = 10_000;

export interface DelivererOptions {
  /** Rows claimed per statement (several rounds per tick while rows are due). */
  batchSize?: number;
  /** Claim rounds per tick at most, so one tick ends even under a flood. */
  maxRounds?: number;
  /** Aborts requests in flight (the task is stopping): their claims are given back untried. */
  signal?: AbortSignal;
}

export type DeliveryReport = PassReport;

const short = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

function describeError(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `No response within ${REQUEST_TIMEOUT_MS / 1000} s.`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return short(`Request failed: ${e?.message ?? String(error)}${cause ? ` (${cause})` : ""}`);
}

/**
 * The payload as sent: an action.created event gains `url`, the action on the web app. The outbox
 * row is written inside the action's transaction (src/store/commit.ts), where the public address is
 * not known; BASE_URL is, here, and it does not change while the process runs.
 */
export function payloadToSend(stored: string, baseUrl: string): string {
  const event = JSON.parse(stored) as unknown;
  const sent = eventAsSent(event, baseUrl);
  return sent === event ? stored : JSON.stringify(sent);
}

/** The same on a parsed payload (the deliveries listing shows what was sent). */
export function eventAsSent(event: unknown, baseUrl: string): unknown {
  const e = event as Record<string, unknown> | null;
  if (e?.event !== "action.created" || typeof e.actionId !== "string" || e.url !== undefined) return event;
  return { ...e, url: `${baseUrl}/actions#${encodeURIComponent(e.actionId)}` };
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
    // Through the outbound policy (src/docs/notes/outbound-requests.md): a refused target looks like an unreachable one to the
    // subscriber (and is retried like one: DNS may change); the log says which.
    const payload = payloadToSend(d.payload, deps.config.baseUrl);
    const res = await outboundFetch(deps.outbound, target.url, {
      method: "POST",
      headers: signedHeaders(secret, d.eventId, deps.clock.now(), payload),
      body: payload,
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
  return { ...afterFailure(d.attempt, deps.clock.now()), httpStatus, error };
}

/** What a deliverer pass needs. */
export type DelivererDeps = Pick<AppDeps, "db" | "clock" | "log" | "config" | "outbound"> & Partial<Pick<AppDeps, "metrics">>;

/** One pass: deliver every delivery due now (tests call this with a ManualClock). */
export async function deliverDue(deps: DelivererDeps, options: DelivererOptions = {}): Promise<DeliveryReport> {
  return drainOutbox<ClaimedDelivery>({
    now: () => deps.clock.now(),
    claim: (now, until, limit) => claimDueDeliveries(deps.db, now, until, limit),
    batchSize: options.batchSize ?? 20,
    ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    deliver: async (claimed, report) => {
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
    },
  });
}
