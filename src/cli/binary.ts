/**
 * Entry of the single executable (`npm run build:binary`, scripts/build-binary.ts): every `crew`
 * command, `serve` included, without Node or node_modules. The same dispatcher as bin/crew.js,
 * minus tsx (Bun compiles the TypeScript ahead of time). `serve` starts the Bun entry
 * (Bun.serve): under Bun, @hono/node-server's listener reports a bogus EADDRINUSE once listening.
 */
import { runCli } from "./index.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "serve") {
  await import("../serve.bun.ts");
} else {
  const code = await runCli(argv, process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  // "running": a command that keeps the process alive until SIGINT/SIGTERM.
  if (code !== "running") process.exit(code);
}
