/**
 * Node entry: `npm start` (and `crew serve`, which imports serveNode). Serves app.fetch with
 * @hono/node-server; graceful shutdown on SIGINT/SIGTERM.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import net, { type Socket } from "node:net";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { listeningLine, startupFailure } from "./boot.ts";
import { boot } from "./boot-app.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./lib/log.ts";

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
  // Before the app and its store are built: they ask once whether to trace (src/docs/notes/tracing.md).
  const tracing = await (await import("./lib/tracing-sdk.ts")).startTracing(env);
  const booted = await boot(env);
  const { config } = booted;
  const server = serve({ fetch: booted.app.fetch, port: config.port, hostname: config.host }, (info) => {
    console.log(listeningLine(config, info.port));
  });
  server.once("error", (error: NodeJS.ErrnoException) => {
    console.error(listenFailure(error, config));
    void booted.close().finally(() => process.exit(1));
  });
  const shutdown = gracefulShutdown(server as Server, {
    log: booted.deps.log,
    stopping: () => booted.stopping(),
    close: async () => {
      await booted.close();
      await tracing?.stop();
    },
  });
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  if (options.stopWhenOrphaned) {
    // A parent that dies without passing its SIGTERM on leaves this process reparented (issue 11 item 8).
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(watch);
        shutdown("parent gone");
      }
    }, PARENT_CHECK_MS);
    watch.unref();
  }
}

/** src/docs/notes/running.md#shutdown Shutdown: how long requests already received get to finish. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** A connection accepted but with no request yet gets this long to send one (it is then answered). */
export const FRESH_CONNECTION_GRACE_MS = 1_000;
/** How long the listener stays open after the signal, to accept connections already established. */
export const ACCEPT_DRAIN_MS = 50;

interface ConnectionState {
  inFlight: number;
  served: number;
}

/**
 * src/docs/notes/running.md#shutdown Shutdown, for node:http: stop accepting; answer every request already received (each
 * answer says `Connection: close`); close idle keep-alive connections at once; give a connection
 * accepted but not yet sent its request a moment to send it; after SHUTDOWN_GRACE_MS close whatever
 * is left. Then — in either case — stop the background tasks and close the database, and exit 0.
 *
 * Node's own server.close() is not used for the connections: it destroys every connection without
 * a request in progress, including fresh ones whose request is on its way (they saw a reset).
 */
export function gracefulShutdown(
  server: Server,
  options: { log: Logger; stopping?(): void; close(): Promise<void>; exit?: (code: number) => void },
): (signal: string) => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const connections = new Map<Socket, ConnectionState>();
  let stopping = false;
  server.on("connection", (socket: Socket) => {
    connections.set(socket, { inFlight: 0, served: 0 });
    socket.once("close", () => connections.delete(socket));
  });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const state = connections.get(request.socket);
    if (!state) return;
    state.inFlight++;
    if (stopping) response.setHeader("Connection", "close");
    response.once("close", () => {
      state.inFlight--;
      state.served++;
      if (stopping && state.inFlight === 0) request.socket.destroySoon();
    });
  });

  return (signal: string) => {
    if (stopping) return;
    stopping = true;
    options.log.info("shutting down", { signal, connections: connections.size });
    options.stopping?.(); // streams that would otherwise hold their connection until the deadline end now
    let finished = false;
    const finish = async (forced: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      for (const socket of connections.keys()) socket.destroy();
      try {
        await options.close(); // background tasks, then the database
        options.log.info("shut down", { forced });
      } catch (error) {
        options.log.error("shutdown failed", { error: String(error) });
      }
      exit(0);
    };
    const deadline = setTimeout(() => void finish(true), SHUTDOWN_GRACE_MS);
    // Connections the kernel has completed but the event loop not yet accepted are clients'
    // established connections: closing the listener now would reset them (with their request).
    // One short moment to accept them first, then no more.
    setTimeout(() => {
      // Stop listening; the callback runs once every connection has closed.
      net.Server.prototype.close.call(server, () => void finish(false));
      for (const [socket, state] of connections) {
        if (state.inFlight > 0) continue; // answered, then closed (Connection: close)
        if (state.served > 0)
          socket.destroy(); // an idle keep-alive connection
        else {
          // Accepted, no request yet: it may be on its way. Answered if it comes, else closed.
          setTimeout(() => {
            const now = connections.get(socket);
            if (now && now.inFlight === 0 && now.served === 0) socket.destroy();
          }, FRESH_CONNECTION_GRACE_MS).unref();
        }
      }
    }, ACCEPT_DRAIN_MS);
  };
}

// Started as the entry (`node --import tsx src/serve.ts`), not imported by the CLI.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serveNode(process.env).catch((error) => {
    console.error(startupFailure(error, process.env));
    process.exit(1);
  });
}
