/**
 * The dependency record every layer above the store receives, and the per-request values a
 * handler reads from the context. Entries build the record once (`resolveDeps`, src/resolve-deps.ts);
 * router factories and background tasks receive it as an argument. Types only, no runtime code, so
 * any floor may import this one without importing what builds it (src/docs/notes/architecture.md).
 */
import type { Config } from "./config.ts";
import type { Principal } from "./domain.ts";
import type { Clock } from "./lib/clock.ts";
import type { Events } from "./lib/events.ts";
import type { Logger } from "./lib/log.ts";
import type { Metrics } from "./lib/metrics.ts";
import type { OutboundPolicy } from "./lib/outbound-policy.ts";
import type { Db } from "./store/db.ts";
import type { QuotaStore } from "./store/quota/quota.ts";

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  events: Events;
  /** The request quota counter (pending takes of this process live in it). */
  quota: QuotaStore;
  /** Every request to a user-supplied address goes through it (src/docs/notes/outbound-requests.md); boot injects DNS and a pinned connector. */
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

/** Work the server process does besides answering requests (src/background/runtime.ts names them). */
export interface BackgroundTask {
  name: string;
  start(deps: AppDeps): RunningTask;
}

export interface RunningTask {
  stop(): Promise<void>;
}
