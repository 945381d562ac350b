/** At most `width` tasks at a time; the others wait in arrival order. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  active(): number;
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
  };
}
