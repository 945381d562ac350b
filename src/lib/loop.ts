/**
 * The one shape of background work: a pass run now and then, never two at once. `run()` starts
 * a pass, or, while one is in progress, queues exactly one more after it (callers arriving
 * meanwhile join that one), so work that arrived during a pass is never left waiting for the next
 * interval. With `overlap: "skip"` an interval tick during a pass is dropped instead.
 * Used by the webhook deliverer, the agents scheduler and the regenerator.
 */
export interface LoopOptions {
  /** Run a pass every so often (none: only when asked). */
  intervalMs?: number;
  /** What an interval tick does while a pass is running: queue one more ("again") or nothing ("skip"). */
  overlap?: "again" | "skip";
  /** Let the process exit while only this loop's timer is left. */
  unref?: boolean;
  onError(error: unknown): void;
}

export interface Loop {
  /** Runs a pass now, or once more right after the one in progress; resolves when that pass has ended. */
  run(): Promise<void>;
  /** `run()` after `delayMs`, unless a delayed run is already waiting (a debounce). */
  runAfter(delayMs: number): void;
  /** Stops the timers, aborts the signal passes get, and waits for a pass in progress. */
  stop(): Promise<void>;
}

type Timer = ReturnType<typeof setTimeout>;
const unrefTimer = (timer: Timer) => (timer as { unref?: () => void }).unref?.();

export function startLoop(pass: (signal: AbortSignal) => Promise<void>, options: LoopOptions): Loop {
  const controller = new AbortController();
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | null = null;
  let active = false;
  let delayed: Timer | null = null;

  const run = (): Promise<void> => {
    if (queued) return queued;
    const next = tail.then(async () => {
      queued = null;
      active = true;
      if (delayed) clearTimeout(delayed);
      delayed = null;
      try {
        await pass(controller.signal);
      } catch (error) {
        options.onError(error);
      } finally {
        active = false;
      }
    });
    queued = next;
    tail = next;
    return next;
  };

  const interval =
    options.intervalMs === undefined
      ? null
      : setInterval(() => {
          if (options.overlap === "skip" && (active || queued)) return;
          void run();
        }, options.intervalMs);
  if (interval && options.unref) unrefTimer(interval);

  return {
    run,
    runAfter(delayMs) {
      if (delayed || controller.signal.aborted) return;
      delayed = setTimeout(() => {
        delayed = null;
        void run();
      }, delayMs);
      if (options.unref) unrefTimer(delayed);
    },
    async stop() {
      if (interval) clearInterval(interval);
      if (delayed) clearTimeout(delayed);
      delayed = null;
      controller.abort();
      await tail;
    },
  };
}
