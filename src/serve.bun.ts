/** Bun entry: `bun run src/serve.bun.ts`. Same boot as Node; Bun.serve instead of @hono/node-server. */
import { listeningLine, startupFailure } from "./boot.ts";
import { boot } from "./boot-app.ts";

// The one Bun API used here, so `tsc` (configured for Node) checks this file too.
declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: (request: Request, server: unknown) => Response | Promise<Response> }): {
    port: number;
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
};

try {
  const booted = await boot(process.env);
  const { config } = booted;
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch: booted.app.fetch });
  console.log(listeningLine(config, server.port));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // End long-lived streams, stop accepting, let in-flight requests finish (up to 10 s), then close the database.
    booted.stopping();
    setTimeout(() => process.exit(0), 10_000).unref();
    await server.stop();
    await booted.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  console.error(startupFailure(error, process.env));
  process.exit(1);
}
