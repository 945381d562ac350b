/**
 * What the servers run (serve.ts, serve.deno.ts, serve.bun.ts): the dependencies of boot.ts, the
 * app over them, the first-run setup link and the background tasks. Kept apart from boot.ts so
 * `crew mcp` (mcp/stdio.ts), which starts from `bootDeps`, never loads the app.
 */
import type { Hono } from "hono";
import { type BootedDeps, type BootOptions, backupFiles, bootDeps } from "./boot.ts";
import type { AppEnv } from "./deps.ts";

export interface Booted extends BootedDeps {
  /** The one Fetch handler (app.ts), loaded only here so `crew mcp` never pulls it in. */
  app: Hono<AppEnv>;
}

/** What the servers run: the dependencies, the app over them, the setup link and the background tasks. */
export async function boot(given: Record<string, string | undefined>, options: BootOptions = {}): Promise<Booted> {
  const started = await bootDeps(given, options);
  const { db, config, deps } = started;
  const { clock, log } = deps;
  const [{ createApp }, { ensureSetupLink }, { serverTasks, startBackground }] = await Promise.all([
    import("./app.ts"),
    import("./auth/setup.ts"),
    import("./background/runtime.ts"),
  ]);
  const app = createApp(deps);
  const setupLink = options.announceSetup === false ? null : await ensureSetupLink(db, config, clock.now());
  if (setupLink) console.log(`No user yet: create the owner account at ${setupLink} (the link works once)`);
  const background = startBackground(deps, serverTasks({ backupFiles }));
  return {
    ...started,
    app,
    async close() {
      started.stopping();
      await background.stop();
      log.info("background tasks stopped");
      await started.close();
    },
  };
}
