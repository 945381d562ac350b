/**
 * The message deliverer (src/docs/notes/delivery.md): claims due rows of the message outbox and hands each to the
 * sender of its channel (mail, Slack, Teams). The design is the webhook deliverer's
 * (src/webhooks/deliver.ts), with its retry schedule and claim lease: a transient failure is
 * retried after 5 s, 30 s, 2 min, 10 min, 1 h and 6 h, then the message is `failed`; a permanent
 * one (a 5xx SMTP reply, a Slack `channel_not_found`) fails at once. All state lives in the
 * database, so a restart loses nothing and several processes may run a deliverer on one database.
 */
import type { AppDeps, BackgroundTask } from "../../deps.ts";
import { DAY, HOUR } from "../../lib/clock.ts";
import { startLoop } from "../../lib/loop.ts";
import {
  type ClaimedMessage,
  claimDueMessages,
  finishMessage,
  type MessageChannel,
  type MessageOutcome,
  pruneMessages,
  releaseMessage,
} from "../../store/messages.ts";
import { pruneMailLinks } from "../../store/notify.ts";
import { CLAIM_MS, RETRY_DELAYS_MS } from "../../webhooks/deliver.ts";

/** What a sender reports: sent, or why not and whether trying again may help. */
export type SendResult = { ok: true } | { ok: false; error: string; permanent?: boolean };

export type NotifyDeps = Pick<AppDeps, "db" | "clock" | "log" | "config" | "outbound">;

export type Sender = (deps: NotifyDeps, message: ClaimedMessage, signal?: AbortSignal) => Promise<SendResult>;
export type Senders = Partial<Record<MessageChannel, Sender>>;

/** Delivered and failed messages stay in the delivery log this long. */
export const MESSAGE_RETENTION_MS = 30 * DAY;

export interface MessagePassReport {
  delivered: number;
  retrying: number;
  failed: number;
}

const short = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

async function attempt(deps: NotifyDeps, senders: Senders, m: ClaimedMessage, signal?: AbortSignal): Promise<MessageOutcome | "released"> {
  const send = senders[m.channel];
  if (!send) return { status: "failed", error: `Nothing sends ${m.channel} messages here (is it configured?).` };
  let result: SendResult;
  try {
    result = await send(deps, m, signal);
  } catch (error) {
    if (signal?.aborted) return "released";
    result = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  if (result.ok) return { status: "delivered" };
  const delay = RETRY_DELAYS_MS[m.attempt - 1];
  const error = short(result.error);
  return result.permanent || delay === undefined
    ? { status: "failed", error }
    : { status: "pending", error, nextAttemptAt: deps.clock.now() + delay };
}

/** One pass: send every message due now (tests call this with a ManualClock). */
export async function deliverMessages(
  deps: NotifyDeps,
  senders: Senders,
  options: { batchSize?: number; maxRounds?: number; signal?: AbortSignal } = {},
): Promise<MessagePassReport> {
  const report: MessagePassReport = { delivered: 0, retrying: 0, failed: 0 };
  const batchSize = options.batchSize ?? 10;
  for (let round = 0; round < (options.maxRounds ?? 10) && !options.signal?.aborted; round++) {
    const now = deps.clock.now();
    const claimed = await claimDueMessages(deps.db, now, now + CLAIM_MS, batchSize);
    if (claimed.length === 0) break;
    // One at a time: an SMTP server or Slack's rate limits prefer a steady stream to a burst.
    for (const m of claimed) {
      const outcome = await attempt(deps, senders, m, options.signal);
      if (outcome === "released") {
        await releaseMessage(deps.db, m, deps.clock.now());
        continue;
      }
      if (!(await finishMessage(deps.db, m, outcome, deps.clock.now()))) continue;
      report[outcome.status === "delivered" ? "delivered" : outcome.status === "pending" ? "retrying" : "failed"] += 1;
      if (outcome.status !== "delivered") {
        deps.log.warn("message delivery failed", {
          message: m.id,
          channel: m.channel,
          attempt: m.attempt,
          error: outcome.error,
          final: outcome.status === "failed",
        });
      }
    }
    if (claimed.length < batchSize) break;
  }
  return report;
}

/** The background task: a pass every `intervalMs`, and one at once after any domain event. */
export function messageDeliveryTask(senders: (deps: NotifyDeps) => Senders, options: { intervalMs?: number } = {}): BackgroundTask {
  return {
    name: "message-deliverer",
    start(deps) {
      const bound = senders(deps);
      let prunedAt = Number.NEGATIVE_INFINITY;
      const loop = startLoop(
        async (signal) => {
          const report = await deliverMessages(deps, bound, { signal });
          if (report.delivered + report.retrying + report.failed > 0) deps.log.info("message delivery pass", { ...report });
          if (deps.clock.now() - prunedAt >= HOUR) {
            prunedAt = deps.clock.now();
            await pruneMessages(deps.db, prunedAt - MESSAGE_RETENTION_MS);
            await pruneMailLinks(deps.db, prunedAt - DAY); // a day past expiry, so "expired" pages still say so meanwhile
          }
        },
        {
          intervalMs: options.intervalMs ?? 2000,
          onError: (error) => deps.log.error("message delivery pass failed", { error: String(error) }),
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
