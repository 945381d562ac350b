/**
 * Fills the dependency record (src/deps.ts) from what an entry gives: the parts it leaves out get
 * their defaults (system clock, a logger at the configured level, a fresh event bus, the quota
 * store, metrics, and an outbound policy without DNS). Entries (boot.ts) and test servers call it;
 * createApp receives the result.
 */
import type { AppDeps } from "./deps.ts";
import { systemClock } from "./lib/clock.ts";
import { createEvents } from "./lib/events.ts";
import { createLogger } from "./lib/log.ts";
import { createMetrics } from "./lib/metrics.ts";
import { createQuotaStore } from "./store/quota/quota.ts";

export type AppDepsInput = Pick<AppDeps, "db" | "config"> & Partial<AppDeps>;

export function resolveDeps(input: AppDepsInput): AppDeps {
  const log = input.log ?? createLogger(input.config.logLevel);
  return {
    clock: systemClock,
    events: createEvents((error, event) => log.error("event listener failed", { event: event.type, error: String(error) })),
    quota: createQuotaStore(input.db),
    metrics: input.metrics ?? createMetrics(),
    outbound: { allowPrivate: input.config.allowPrivateTargets, resolve: noResolver },
    ...input,
    log,
  };
}

/** Web standards have no DNS lookup: without one injected by boot, only literal public addresses (or, with ALLOW_PRIVATE_TARGETS, anything) pass. */
async function noResolver(host: string): Promise<string[]> {
  throw new Error(`no DNS resolver to look up ${host}`);
}
