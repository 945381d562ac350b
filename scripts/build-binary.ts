/**
 * `npm run build:binary`: one executable (dist/crew) that runs every `crew` command on a machine
 * without Node or node_modules. Run by Bun (`bun scripts/build-binary.ts [--outfile F]`).
 *
 * Two things `bun build --compile` does not embed by itself (src/docs/notes/operating.md#one-file-to-run):
 * - libSQL's native addon: `libsql` picks it at run time with a computed `require()`, which Bun
 *   resolves from the working directory. The plugin below rewrites that call to a static require
 *   of the addon for the build machine's target, so Bun embeds the `.node` file (extracted to
 *   $TMPDIR at start).
 * - schema.sql and the notes of /docs (src/docs/notes/*.md): read from disk next to the sources;
 *   here they are passed in as the build-time constants CREW_EMBEDDED_SCHEMA and
 *   CREW_EMBEDDED_NOTES (src/boot.ts prefers them when defined).
 */
import { readdirSync, readFileSync } from "node:fs";
import { arch, platform } from "node:os";

declare const Bun: {
  build(options: Record<string, unknown>): Promise<{ success: boolean; logs: unknown[] }>;
};

const args = process.argv.slice(2);
const outfile =
  args[args.indexOf("--outfile") + 1] && args.includes("--outfile") ? String(args[args.indexOf("--outfile") + 1]) : "dist/crew";
const root = new URL("..", import.meta.url);
const schema = readFileSync(new URL("schema.sql", root), "utf8");
const notesFolder = new URL("src/docs/notes/", root);
const notes = readdirSync(notesFolder)
  .filter((file) => file.endsWith(".md"))
  .map((file) => ({ file, text: readFileSync(new URL(file, notesFolder), "utf8") }));
const libc = platform() === "linux" ? "-gnu" : "";
const addon = `@libsql/${platform()}-${arch()}${libc}`;

const embedLibsqlAddon = {
  name: "embed-libsql-addon",
  setup(build: { onLoad(filter: { filter: RegExp }, load: (args: { path: string }) => { contents: string; loader: string }): void }) {
    build.onLoad({ filter: /node_modules[\\/]libsql[\\/]index\.js$/ }, ({ path }) => {
      const source = readFileSync(path, "utf8");
      const rewritten = source.replace(
        /function requireNative\(\) \{[\s\S]*?\n\}\n/,
        `function requireNative() {\n  return require("${addon}/index.node");\n}\n`,
      );
      if (rewritten === source) throw new Error("libsql/index.js changed shape: requireNative() not found");
      return { contents: rewritten, loader: "js" };
    });
  },
};

const started = Date.now();
const result = await Bun.build({
  entrypoints: [new URL("src/cli/binary.ts", root).pathname],
  compile: { outfile },
  target: "bun",
  minify: true,
  define: { CREW_EMBEDDED_SCHEMA: JSON.stringify(schema), CREW_EMBEDDED_NOTES: JSON.stringify(notes) },
  plugins: [embedLibsqlAddon],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`built ${outfile} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
