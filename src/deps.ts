/**
 * The dependency record every layer above the store receives, and the per-request values a
 * handler reads from the context. Entries build the record once (`resolveDeps`); router factories
 * and background tasks receive it as an argument. Nothing here mounts routes, so any file may
 * import this one without importing the app (ARCHITECTURE.md, layering).
 */
import { createEvents, type Events } from "./agents/events.ts";
import type { Principal } from "./auth/access.ts";
import type { Config } from "./config.ts";
import type { OutboundPolicy } from "./integrations/outbound.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import { createMetrics, type Metrics } from "./lib/metrics.ts";
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
  /** Every request to a user-supplied address goes through it (SPEC §16); boot injects DNS and a pinned connector. */
  outbound: OutboundPolicy;
  /** This process's Prometheus metrics (GET /metrics). */
  metrics: Metrics;
  /** The Markdown files of src/docs/notes/, read by the entry (boot.ts) and rendered under /docs/notes. */
  notes?: { file: string; text: string }[];
  /** Aborted when the process starts shutting down: long-lived responses (MCP subscription streams) end then. */
  stopping?: AbortSignal;
}

/** Per-request values only; dependencies reach handlers through their router factory. */
export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The signed-in user of a browser session, once read (for the access log). */
    sessionUserId: string;
  };
};

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

/** Work the server process does besides answering requests (src/background/runtime.ts names them). */
export interface BackgroundTask {
  name: string;
  start(deps: AppDeps): RunningTask;
}

export interface RunningTask {
  stop(): Promise<void>;
}
