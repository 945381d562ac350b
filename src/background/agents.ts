/**
 * The agents runtime as a background task of server processes (src/background/runtime.ts): the scheduler
 * (one leader across processes, by lease) and the regenerator (in every process, for the writes
 * that process takes).
 */

import { createRegenerator } from "../agents/regenerate.ts";
import { createScheduler } from "../agents/scheduler.ts";
import type { BackgroundTask } from "../deps.ts";

export const agentsRuntime: BackgroundTask = {
  name: "agents",
  start(deps) {
    const regenerator = createRegenerator(deps);
    const scheduler = createScheduler(deps);
    scheduler.start();
    return {
      async stop() {
        await regenerator.stop();
        await scheduler.stop();
      },
    };
  },
};
