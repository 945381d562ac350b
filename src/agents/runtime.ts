/**
 * The agents runtime as a background task of server processes (src/background.ts): the scheduler
 * (one leader across processes, by lease) and the regenerator (in every process, for the writes
 * that process takes).
 *
 * Model-backed agents read their sources through the outbound policy (SPEC §16), built here from
 * the runtime's DNS lookup (boot passes it in) unless the deps carry one.
 */
import type { BackgroundTask } from "../deps.ts";
import type { OutboundPolicy } from "../integrations/outbound.ts";
import { createRegenerator } from "./regenerate.ts";
import { createScheduler } from "./scheduler.ts";

/** `resolveHost`: the runtime's DNS lookup (src/background.ts Platform). */
export const agentsRuntime = (platform: { resolveHost?: (host: string) => Promise<string[]> } = {}): BackgroundTask => ({
  name: "agents",
  start(deps) {
    const policy: OutboundPolicy = (deps as { policy?: OutboundPolicy }).policy ?? {
      allowPrivate: deps.config.webhookAllowPrivate,
      resolve: platform.resolveHost ?? (async () => []),
    };
    const regenerator = createRegenerator({ ...deps, policy });
    const scheduler = createScheduler({ ...deps, policy });
    scheduler.start();
    return {
      async stop() {
        await regenerator.stop();
        await scheduler.stop();
      },
    };
  },
});
