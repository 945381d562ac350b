/**
 * The agents runtime as a background task of server processes (src/background.ts): the scheduler
 * (one leader across processes, by lease) and the regenerator (in every process, for the writes
 * that process takes).
 */
import type { BackgroundTask } from "../deps.ts";
import { createRegenerator } from "./regenerate.ts";
import { createScheduler } from "./scheduler.ts";

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
