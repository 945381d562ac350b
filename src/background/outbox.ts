/**
 * One outbox deliverer for every kind of outbox (webhooks, messages): the background task of a
 * kind, around the claim / attempt / backoff pass of src/lib/outbox-pass.ts. A pass claims due rows in
 * bounded rounds (a claim lease of CLAIM_MS, so only a crashed process's claims expire), hands
 * them to the kind's `deliver`, and the kind records each outcome; a transient failure is retried
 * after 5 s, 30 s, 2 min, 10 min, 1 h and 6 h, then the row is `failed`. All state lives in the
 * database, so a restart loses nothing and several processes may run a deliverer on one database.
 * Finished rows are forgotten by the one retention pass (src/store/retention.ts).
 */
import type { AppDeps, BackgroundTask } from "../deps.ts";
import { startLoop } from "../lib/loop.ts";
import type { PassReport } from "../lib/outbox-pass.ts";

export interface OutboxKind {
  /** The task's name, and the words of its log lines ("webhook delivery"). */
  name: string;
  label: string;
  intervalMs: number;
  pass: (deps: AppDeps, signal: AbortSignal) => Promise<PassReport>;
}

/**
 * The background task of an outbox: a pass every `intervalMs`, and one at once after any domain
 * event (a write's outbox rows are committed before its event is emitted). Passes never overlap.
 */
export function outboxTask(kind: OutboxKind): BackgroundTask {
  return {
    name: kind.name,
    start(deps) {
      const loop = startLoop(
        async (signal) => {
          const report = await kind.pass(deps, signal);
          // Background passes that did something are logged at info.
          if (report.delivered + report.retrying + report.failed > 0) deps.log.info(`${kind.label} pass`, { ...report });
        },
        {
          intervalMs: kind.intervalMs,
          onError: (error) => deps.log.error(`${kind.label} pass failed`, { error: String(error) }),
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
