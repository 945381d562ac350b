/**
 * `npm start`: serves from a bundle of src/ (dist/serve.mjs) on plain Node, so the first request
 * is answered well within a second (tsx compiles every module at each start: ≈ 1.3 s, 149 MiB;
 * the bundle ≈ 0.3 s, 95 MiB — src/docs/notes/storage-and-speed.md#starting). The bundle is built here, with esbuild, when it is
 * missing or older than any file of src/ or package.json, so `npm install && npm start` works
 * without a build step and an edit (or an install) is never served stale. Each source module
 * keeps its own `import.meta.url`, so files read relative to it (schema.sql, docs) are found
 * where they are.
 * Deno and Bun run src/ directly and do not use this.
 *
 * Shutdown (issue 11 item 8): npm runs this through `sh -c`; `exec` in the npm script makes this
 * process npm's child, which receives the SIGTERM npm forwards. Should npm go away without
 * forwarding it, the server notices that its parent changed and stops as on SIGTERM.
 */
import { readdirSync, renameSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// CREW_START_BUNDLE (a path inside the checkout, so the bundle finds node_modules): for the test
// of the first start, which must build without touching the bundle other runs use.
const BUNDLE = process.env.CREW_START_BUNDLE ? resolve(ROOT, process.env.CREW_START_BUNDLE) : join(ROOT, "dist", "serve.mjs");

function newestSource() {
  let newest = 0;
  for (const file of ["package.json", "package-lock.json"]) {
    try {
      newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
    } catch {}
  }
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(ROOT, "src"));
  return newest;
}

function bundleTime() {
  try {
    return statSync(BUNDLE).mtimeMs;
  } catch {
    return -1;
  }
}

export async function buildBundle() {
  const { build, stop } = await import("esbuild");
  const temp = `${BUNDLE}.${process.pid}.tmp`;
  await build({
    entryPoints: [join(ROOT, "src", "serve.ts")],
    outfile: temp,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Dependencies are bundled too (loading them as hundreds of files was most of the start time);
    // libSQL stays outside for its native addon, esbuild is only needed here.
    external: ["libsql", "@libsql/*", "esbuild"],
    banner: { js: 'import { createRequire as __crewRequire } from "node:module"; const require = __crewRequire(import.meta.url);' },
    logLevel: "warning",
    plugins: [
      {
        name: "source-import-meta-url",
        setup(b) {
          b.onLoad({ filter: /\/src\/.*\.ts$/ }, async ({ path }) => {
            const { readFile } = await import("node:fs/promises");
            const text = await readFile(path, "utf8");
            return {
              contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href)),
              loader: "ts",
              resolveDir: dirname(path),
            };
          });
        },
      },
    ],
  });
  await stop(); // esbuild's service process is not needed while serving
  // Rename into place: a process starting at the same moment sees the old bundle or the new one, whole.
  renameSync(temp, BUNDLE);
}

const built = bundleTime();
if (built < newestSource()) {
  // Said before the build, which is silent and takes a while on a small machine: a first start
  // should not look hung (src/docs/notes/running.md).
  console.error(built < 0 ? "Preparing Crew (first start: about 15 s)…" : "Preparing Crew (updated files: about 15 s)…");
  await buildBundle();
}
const { serveNode, startupFailure } = await import(pathToFileURL(BUNDLE).href);
try {
  await serveNode(process.env, { stopWhenOrphaned: true });
} catch (error) {
  console.error(startupFailure(error, process.env));
  process.exit(1);
}
