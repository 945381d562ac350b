/** Node entry: `npm start`. Serves app.fetch with @hono/node-server; graceful shutdown on SIGINT/SIGTERM. */
import { serve } from "@hono/node-server";
import { boot } from "./boot.ts";
import { ConfigError } from "./config.ts";

async function main(): Promise<void> {
  const booted = await boot(process.env);
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

main().catch((error) => {
  console.error(error instanceof ConfigError ? `crew: ${error.message}` : error);
  process.exit(1);
});
