/**
 * The retention pass as a background task (src/docs/notes/operating.md), named in src/background/runtime.ts: every RETENTION_INTERVAL_MS one process,
 * the holder of the `retention` lease, deletes what has expired (src/store/retention.ts), in
 * bounded batches with a macrotask between them so requests keep being answered.
 */
import type { BackgroundTask } from "../deps.ts";
import { DAY, MINUTE } from "../lib/clock.ts";
import { startLoop } from "../lib/loop.ts";
import { randomSecret } from "../lib/random.ts";
import { releaseLease, takeLease } from "../store/leases/leases.ts";
import { runRetention } from "../store/retention.ts";

export const RETENTION_LEASE = "retention";
export const RETENTION_INTERVAL_MS = 10 * MINUTE;

const yieldToRequests = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function retentionTask(options: { signInWindowMs: number }): BackgroundTask {
  return {
    name: "retention",
    start(deps) {
      const holder = `retention-${randomSecret(10)}`;
      const loop = startLoop(
        async (signal) => {
          const now = deps.clock.now();
          // The lease lasts one interval: whichever process takes it runs the pass, the others skip.
          if (!(await takeLease(deps.db, RETENTION_LEASE, holder, now, now + RETENTION_INTERVAL_MS))) return;
          const deleted = await runRetention(deps.db, now, {
            signInWindowMs: options.signInWindowMs,
            auditRetentionMs: deps.config.auditRetentionDays * DAY,
            pause: yieldToRequests,
            signal,
          });
          const total = Object.values(deleted).reduce((a, b) => a + b, 0);
          if (total > 0) deps.log.info("retention pass", deleted);
        },
        {
          intervalMs: RETENTION_INTERVAL_MS,
          overlap: "skip",
          unref: true,
          onError: (error) => deps.log.error("retention pass failed", { error: String(error) }),
        },
      );
      void loop.run();
      return {
        async stop() {
          await loop.stop();
          await releaseLease(deps.db, RETENTION_LEASE, holder).catch(() => {});
        },
      };
    },
  };
}
