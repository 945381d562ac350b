/**
 * The per-user cap on open `subscriptions/listen` streams (src/docs/notes/mcp-clients.md), held in
 * the database so that it holds under parallel opens and across processes: a user has
 * MAX_STREAMS_PER_USER slots, each a lease (store/leases) named after the user and the slot; a
 * stream takes the first free one with one atomic upsert per slot tried, renews it while open and
 * hands it back when it ends. A process that dies without handing its slots back frees them when
 * their leases expire.
 */
import type { Clock } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { releaseLease, takeLease } from "../store/leases/leases.ts";

export const MAX_STREAMS_PER_USER = 5;
/** How long a slot stays taken without renewal; renewed at a third of it. */
const SLOT_TTL_MS = 60_000;

export interface StreamSlot {
  /** Hands the slot back (once; later calls do nothing). */
  release(): Promise<void>;
}

const slotName = (userId: string, slot: number) => `mcp-stream:${userId}:${slot}`;

/** A free slot of the user's, taken for one stream, or null when all are taken. */
export async function takeStreamSlot(deps: { db: Db; clock: Clock }, userId: string): Promise<StreamSlot | null> {
  const { db, clock } = deps;
  const holder = newId("mst", clock.now());
  for (let slot = 0; slot < MAX_STREAMS_PER_USER; slot++) {
    const name = slotName(userId, slot);
    const now = clock.now();
    if (!(await takeLease(db, name, holder, now, now + SLOT_TTL_MS))) continue;
    const renew = setInterval(() => {
      const at = clock.now();
      void takeLease(db, name, holder, at, at + SLOT_TTL_MS).catch(() => {});
    }, SLOT_TTL_MS / 3);
    (renew as { unref?: () => void }).unref?.();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await releaseLease(db, name, holder);
      },
    };
  }
  return null;
}
