#!/usr/bin/env node
// `npx crew …`: runs the TypeScript CLI through tsx's loader (no build step).
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../src/cli/index.ts");
const code = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
// "running": `serve` keeps the process alive until SIGINT/SIGTERM.
if (code !== "running") process.exitCode = code;
