/**
 * A concurrency gate: at most `running` tasks at once, at most `waiting` more in line; beyond
 * that, `run` refuses at once with GateFull, so an overload is answered fast instead of making
 * everyone wait (used for password hashing, which is CPU-bound).
 */
export class GateFull extends Error {
  override name = "GateFull";
}

export interface Gate {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createGate(running: number, waiting: number): Gate {
  let active = 0;
  const line: (() => void)[] = [];
  const release = () => {
    active--;
    const next = line.shift();
    if (next) {
      active++;
      next();
    }
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= running) {
        if (line.length >= waiting) throw new GateFull("busy");
        await new Promise<void>((resolve) => line.push(resolve));
      } else active++;
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
