/**
 * The message deliverer (src/docs/notes/delivery.md): claims due rows of the message outbox and hands each to the
 * sender of its channel (mail, Slack, Teams), through the one outbox deliverer of
 * src/background/outbox.ts (the webhooks' claim lease and retry schedule): a transient failure is
 * retried after 5 s, 30 s, 2 min, 10 min, 1 h and 6 h, then the message is `failed`; a permanent
 * one (a 5xx SMTP reply, a Slack `channel_not_found`) fails at once.
 */

import type { AppDeps } from "../../deps.ts";
import { afterFailure, drainOutbox, type PassReport } from "../../lib/outbox-pass.ts";
import {
  type ClaimedMessage,
  claimDueMessages,
  finishMessage,
  type MessageChannel,
  type MessageOutcome,
  releaseMessage,
} from "../../store/delivery/messages.ts";

/** What a sender reports: sent, or why not and whether trying again may help. */
export type SendResult = { ok: true } | { ok: false; error: string; permanent?: boolean };

export type NotifyDeps = Pick<AppDeps, "db" | "clock" | "log" | "config" | "outbound">;

export type Sender = (deps: NotifyDeps, message: ClaimedMessage, signal?: AbortSignal) => Promise<SendResult>;
export type Senders = Partial<Record<MessageChannel, Sender>>;

export type MessagePassReport = PassReport;

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
  return { ...afterFailure(m.attempt, deps.clock.now(), result.permanent), error: short(result.error) };
}

/** One pass: send every message due now (tests call this with a ManualClock). */
export async function deliverMessages(
  deps: NotifyDeps,
  senders: Senders,
  options: { batchSize?: number; maxRounds?: number; signal?: AbortSignal } = {},
): Promise<MessagePassReport> {
  return drainOutbox<ClaimedMessage>({
    now: () => deps.clock.now(),
    claim: (now, until, limit) => claimDueMessages(deps.db, now, until, limit),
    batchSize: options.batchSize ?? 10,
    ...(options.maxRounds !== undefined ? { maxRounds: options.maxRounds } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    // One at a time: an SMTP server or Slack's rate limits prefer a steady stream to a burst.
    deliver: async (claimed, report) => {
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
    },
  });
}
