/**
 * The dependency record every layer above the store receives, and the per-request values a
 * handler reads from the context. Entries build the record once (`resolveDeps`); router factories
 * and background tasks receive it as an argument. Nothing here mounts routes, so any file may
 * import this one without importing the app (ARCHITECTURE.md, layering).
 */
import { createEvents, type Events } from "./agents/events.ts";
import type { Principal } from "./auth/access.ts";
import type { Config } from "./config.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import type { Db } from "./store/db.ts";
import { createQuotaStore, type QuotaStore } from "./store/quota.ts";

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  events: Events;
  /** The request quota counter (pending takes of this process live in it). */
  quota: QuotaStore;
}

/** Per-request values only; dependencies reach handlers through their router factory. */
export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
  };
};

export type AppDepsInput = Pick<AppDeps, "db" | "config"> & Partial<AppDeps>;

export function resolveDeps(input: AppDepsInput): AppDeps {
  const log = input.log ?? createLogger(input.config.logLevel);
  return {
    clock: systemClock,
    events: createEvents((error, event) => log.error("event listener failed", { event: event.type, error: String(error) })),
    quota: createQuotaStore(input.db),
    ...input,
    log,
  };
}

/** Work the server process does besides answering requests (src/background.ts names them). */
export interface BackgroundTask {
  name: string;
  start(deps: AppDeps): RunningTask;
}

export interface RunningTask {
  stop(): Promise<void>;
}
