/**
 * Node entry: `npm start` (and `crew serve`, which imports serveNode). Serves app.fetch with
 * @hono/node-server; graceful shutdown on SIGINT/SIGTERM.
 */
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { boot, listeningLine, startupFailure } from "./boot.ts";
import type { Config } from "./config.ts";

/** A listen failure in one line naming the variable to change. */
function listenFailure(error: NodeJS.ErrnoException, config: Config): string {
  const where = `${config.host}:${config.port}`;
  if (error.code === "EADDRINUSE") return `crew: PORT ${config.port} is already in use on ${config.host}; set PORT to a free port`;
  if (error.code === "EACCES") return `crew: PORT ${config.port} needs more privileges on ${config.host}; use a port above 1023`;
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") {
    return `crew: HOST ${config.host} is not an address of this machine (${error.code})`;
  }
  return `crew: cannot listen on ${where} (HOST, PORT): ${error.message}`;
}

export { startupFailure };

export interface ServeOptions {
  /** Stop as on SIGTERM when the parent process goes away (`npm start`: scripts/start.mjs). */
  stopWhenOrphaned?: boolean;
}

/** How often a server started by npm checks that npm is still its parent. */
const PARENT_CHECK_MS = 500;

export async function serveNode(env: Record<string, string | undefined> = process.env, options: ServeOptions = {}): Promise<void> {
  const booted = await boot(env);
  const { config } = booted;
  const server = serve({ fetch: booted.app.fetch, port: config.port, hostname: config.host }, (info) => {
    console.log(listeningLine(config, info.port));
  });
  server.once("error", (error: NodeJS.ErrnoException) => {
    console.error(listenFailure(error, config));
    void booted.close().finally(() => process.exit(1));
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Stop accepting, give in-flight requests up to 10 s, then close the database.
    const force = setTimeout(() => process.exit(0), 10_000);
    force.unref();
    server.close(async () => {
      await booted.close();
      process.exit(0);
    });
    if ("closeIdleConnections" in server) (server as { closeIdleConnections(): void }).closeIdleConnections();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (options.stopWhenOrphaned) {
    // A parent that dies without passing its SIGTERM on leaves this process reparented (issue 11 item 8).
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(watch);
        stop();
      }
    }, PARENT_CHECK_MS);
    watch.unref();
  }
}

// Started as the entry (`node --import tsx src/serve.ts`), not imported by the CLI.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serveNode(process.env).catch((error) => {
    console.error(startupFailure(error, process.env));
    process.exit(1);
  });
}
