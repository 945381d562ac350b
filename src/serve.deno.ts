/** Deno entry: `deno task start` (deno.json). Same boot as Node; Deno.serve instead of @hono/node-server. */
import { boot, dataFolder, listeningLine, readSecretFile, startupFailure } from "./boot.ts";
import { ConfigError, loadConfig } from "./config.ts";

// The few Deno APIs used here, so `tsc` (configured for Node) checks this file too.
declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { port: number; hostname: string; onListen(addr: { port: number }): void },
    handler: (request: Request, info: unknown) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
  permissions: { querySync(descriptor: { name: "write"; path: string }): { state: "granted" | "prompt" | "denied" } };
};

/**
 * deno.json's task allows writing to ./data only. A DATABASE_URL elsewhere needs its folder
 * writable too (the database, its WAL files and the generated secret live there): say exactly
 * which flag to add, in one line, instead of failing on the first write.
 */
function checkWritePermission(env: Record<string, string>): void {
  const folder = dataFolder(loadConfig(env, readSecretFile).databaseUrl) ?? "data";
  if (Deno.permissions.querySync({ name: "write", path: folder }).state === "granted") return;
  throw new ConfigError(
    `Deno may not write to ${folder} (the folder of DATABASE_URL): add it to --allow-write, e.g. deno run … --allow-write=data,${folder} … src/serve.deno.ts`,
  );
}

try {
  checkWritePermission(Deno.env.toObject());
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
    // Stop accepting, let in-flight requests finish (up to 10 s), then close the database.
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
