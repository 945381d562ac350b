/**
 * Node entry: `npm start` (and `crew serve`, which imports serveNode). Serves app.fetch with
 * @hono/node-server; graceful shutdown on SIGINT/SIGTERM.
 */
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { boot } from "./boot.ts";
import { ConfigError } from "./config.ts";

export async function serveNode(env: Record<string, string | undefined> = process.env): Promise<void> {
  const booted = await boot(env);
  const { config } = booted;
  const server = serve({ fetch: booted.app.fetch, port: config.port, hostname: config.host }, (info) => {
    console.log(`Crew is listening on http://${config.host}:${info.port} (public URL ${config.baseUrl})`);
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
}

// Started as the entry (`node --import tsx src/serve.ts`), not imported by the CLI.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serveNode(process.env).catch((error) => {
    console.error(error instanceof ConfigError ? `crew: ${error.message}` : error);
    process.exit(1);
  });
}
