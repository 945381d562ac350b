/**
 * Deno entry: `deno task start` (deno.json). Same boot as Node; Deno.serve instead of @hono/node-server.
 * The task may write anywhere the account may: DATABASE_URL can name any folder (the database, its
 * WAL files and the generated secret live beside it), as with `npm start`; network, FFI and system
 * access stay limited to what Crew needs.
 */
import { listeningLine, startupFailure } from "./boot.ts";
import { boot } from "./boot-app.ts";

// The few Deno APIs used here, so `tsc` (configured for Node) checks this file too.
declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { port: number; hostname: string; onListen(addr: { port: number }): void },
    handler: (request: Request, info: unknown) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
};

try {
  const booted = await boot(Deno.env.toObject());
  const { config } = booted;
  const server = Deno.serve(
    {
      port: config.port,
      hostname: config.host,
      onListen: ({ port }) => {
        console.log(listeningLine(config, port));
      },
    },
    booted.app.fetch,
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // End long-lived streams, stop accepting, let in-flight requests finish (up to 10 s), then close the database.
    booted.stopping();
    setTimeout(() => Deno.exit(0), 10_000);
    await server.shutdown();
    await booted.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
} catch (error) {
  console.error(startupFailure(error, Deno.env.toObject()));
  Deno.exit(1);
}
