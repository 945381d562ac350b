import type { Db } from "../db.ts";

/**
 * Takes `n` requests from a user's window in one atomic statement, all or none: it succeeds
 * only when `used + n <= limit`, so processes sharing the database never admit more than
 * `limit` in a window. With n = 1 this is the plain "take one if any is left". Returns the count
 * used after the take, or null when the n do not fit (nothing is taken then).
 */
async function take(db: Db, userId: string, windowStart: number, limit: number, n: number): Promise<number | null> {
  const [row] = await db.all<{ used: number }>(
    `INSERT INTO quota_windows (user_id, window_start, used) SELECT ?1, ?2, ?3 WHERE ?3 <= ?4
     ON CONFLICT (user_id, window_start) DO UPDATE SET used = quota_windows.used + ?3 WHERE quota_windows.used + ?3 <= ?4
     RETURNING used`,
    [userId, windowStart, n, limit],
  );
  return row ? row.used : null;
}

/**
 * Takes in one process that arrive in the same turn of the event loop for the same user and
 * window are coalesced into one statement taking n at once (one write instead of n). When the n
 * do not all fit, each is retried alone, so the last units of a window still go to exactly as
 * many requests as fit: coalescing never refuses a request that a single take would admit.
 */
interface Group {
  userId: string;
  windowStart: number;
  limit: number;
  waiters: Array<{ resolve(used: number | null): void; reject(error: unknown): void }>;
}

/** The next turn of the event loop, after the I/O callbacks of this one (Node, Bun; Deno falls back to a timer). */
const nextTurn: (f: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
    ? (f) => (globalThis as unknown as { setImmediate(f: () => void): void }).setImmediate(f)
    : (f) => setTimeout(f, 0);

async function flushGroup(db: Db, g: Group): Promise<void> {
  const n = g.waiters.length;
  try {
    const used = n > 1 ? await take(db, g.userId, g.windowStart, g.limit, n) : null;
    if (used !== null) {
      // The batch got units used-n+1 … used; hand them out in arrival order.
      g.waiters.forEach((w, i) => {
        w.resolve(used - n + 1 + i);
      });
      return;
    }
    for (const w of g.waiters) w.resolve(await take(db, g.userId, g.windowStart, g.limit, 1));
  } catch (error) {
    for (const w of g.waiters) w.reject(error);
  }
}

/** The quota counter of one store; takes pending in this turn are held here, one per process. */
export interface QuotaStore {
  /**
   * Takes one request from a user's window if any is left. Returns the count used after this
   * request, or null when the window is spent (a refused request takes nothing).
   */
  take(userId: string, windowStart: number, limit: number): Promise<number | null>;
  /** Takes `n` at once, all or none (a JSON-RPC batch of n requests): not coalesced with other takes. */
  takeMany(userId: string, windowStart: number, limit: number, n: number): Promise<number | null>;
}

export function createQuotaStore(store: Db): QuotaStore {
  // Quota windows are counters: a crash of the database may lose their last commits (Store.counters).
  // Asked for at the first take: on PostgreSQL that store opens its own connections.
  let counters: Db | null = null;
  const db = () => (counters ??= store.counters());
  const pending = new Map<string, Group>();
  return {
    take(userId, windowStart, limit) {
      const key = `${userId}\u0000${windowStart}\u0000${limit}`;
      let group = pending.get(key);
      if (!group) {
        const created: Group = { userId, windowStart, limit, waiters: [] };
        group = created;
        pending.set(key, created);
        nextTurn(() => {
          pending.delete(key);
          void flushGroup(db(), created);
        });
      }
      const waiters = group.waiters;
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    takeMany: (userId, windowStart, limit, n) => take(db(), userId, windowStart, limit, n),
  };
}
