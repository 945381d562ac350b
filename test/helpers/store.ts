/**
 * The store as a network database answers it: every statement only after a turn of the event
 * loop. The local engine runs each statement synchronously behind its async API, so two requests
 * of one process cannot interleave between a read and the write that follows it; over a network
 * (a remote libSQL, several processes) they can. Tests of "twice at once" use this to make that
 * interleaving happen every time instead of by chance.
 */
import type { Db } from "../../src/store/db.ts";

/** Waits a turn of the event loop, then answers what `work` answers. */
async function later<T>(work: () => Promise<T>): Promise<T> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  return work();
}

export function overNetwork(db: Db): Db {
  const store: Db = {
    engine: db.engine,
    counters: () => store,
    all: (sql, args) => later(() => db.all(sql, args)),
    one: (sql, args) => later(() => db.one(sql, args)),
    run: (sql, args) => later(() => db.run(sql, args)),
    execute: (statement) => later(() => db.execute(statement)),
    batch: (statements, mode) => later(() => db.batch(statements, mode)),
    close: () => db.close(),
  };
  return store;
}
