/** At most `width` tasks at a time; the others wait in arrival order. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  active(): number;
  /** Tasks waiting for a slot. */
  waiting(): number;
}

export function createLimiter(width: number): Limiter {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(task) {
      if (running >= width) await new Promise<void>((resolve) => waiting.push(resolve));
      else running++;
      try {
        return await task();
      } finally {
        // The slot passes straight to the next waiter (running stays the same), or frees up.
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
    active: () => running,
    waiting: () => waiting.length,
  };
}

/**
 * A limiter per key inside one shared limiter: a task first takes one of its key's `perKey`
 * slots, then one of the `width` shared ones. A key with many slow tasks therefore queues only
 * its own: it never holds more than `perKey` of the shared slots. Idle keys are forgotten.
 */
export function createKeyedLimiter(width: number, perKey: number) {
  const shared = createLimiter(width);
  const keys = new Map<string, Limiter>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const mine = keys.get(key) ?? createLimiter(perKey);
      keys.set(key, mine);
      try {
        return await mine.run(() => shared.run(task));
      } finally {
        if (mine.active() === 0 && mine.waiting() === 0 && keys.get(key) === mine) keys.delete(key);
      }
    },
    active: () => shared.active(),
  };
}
