/**
 * The layering of ARCHITECTURE.md as a test: imports point down only.
 *   entries (serve*.ts, boot.ts, cli/) → app.ts → adapters (rest/, mcp/, web/, docs/, oauth/, http/)
 *   → services (operations/, auth/, agents/, background/, demo/, webhooks/, integrations/) → store/ → domain.ts, lib/
 * Walks every import of src/ (static, type-only, re-exports and dynamic `import()`), so a cycle made
 * of type imports counts too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

interface Imports {
  /** src-relative paths of the files imported */
  local: string[];
  /** package names and node: modules */
  bare: string[];
}

function importsOf(file: string): Imports {
  const text = readFileSync(file, "utf8");
  const local: string[] = [];
  const bare: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[1]!;
    if (spec.startsWith(".")) local.push(relative(SRC, normalize(join(dirname(file), spec))));
    else bare.push(spec);
  }
  return { local, bare };
}

const graph = new Map(sourceFiles(SRC).map((file) => [relative(SRC, file), importsOf(file)]));

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.local ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.local.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** First match wins. */
const LAYERS: [RegExp, number][] = [
  // the floor: shared words, platform-free helpers, the loaded configuration, the error envelope
  [/^(domain\.ts|config\.ts|http\/(errors|csrf|body|validate)\.ts)$/, 0],
  [/^lib\//, 0],
  [/^store\//, 1],
  // services, and the dependency record they receive
  [/^(operations|auth|agents|background|demo|webhooks|integrations)\/|^deps\.ts$/, 2],
  // adapters: the wire formats
  [/^(rest|web|docs|oauth|http)\/|^mcp\/(?!stdio\.ts)/, 3],
  [/^app\.ts$/, 4],
  // entries and their composition
  [/^(cli\/|boot\.ts|outbound-connector\.ts|serve(\.deno|\.bun)?\.ts|mcp\/stdio\.ts)/, 5],
];

function upward(): string[] {
  const found: string[] = [];
  for (const [from, { local }] of graph) {
    for (const to of local) {
      const fromLayer = LAYERS.find(([re]) => re.test(from))?.[1];
      const toLayer = LAYERS.find(([re]) => re.test(to))?.[1];
      if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer && !ALLOWED_UPWARD.has(`${from} -> ${to}`)) {
        found.push(`${from} -> ${to}`);
      }
    }
  }
  return found.sort();
}

/** Known upward arrows still to be removed (each one named, so no new one slips in). */
const ALLOWED_UPWARD = new Set<string>([
  // the redirect-URI rules (RFC 8252) are pure; the grants list shows a client's host with them
  "operations/grants.ts -> oauth/redirect-uri.ts",
]);

describe("import graph of src/", () => {
  it("has every file in a layer", () => {
    const unplaced = [...graph.keys()].filter((f) => !LAYERS.some(([re]) => re.test(f)) && !f.endsWith(".md"));
    expect(unplaced).toEqual([]);
  });

  it("has no import cycle, type-only imports included", () => {
    expect(cycles()).toEqual([]);
  });

  it("store/ imports only store/, domain.ts, lib/ and its database drivers", () => {
    const wrong: string[] = [];
    for (const [from, { local, bare }] of graph) {
      if (!from.startsWith("store/")) continue;
      for (const to of local) if (!/^(store\/|domain\.ts$|lib\/)/.test(to)) wrong.push(`${from} -> ${to}`);
      for (const pkg of bare) if (!["@libsql/client", "libsql"].includes(pkg)) wrong.push(`${from} -> ${pkg}`);
    }
    expect(wrong).toEqual([]);
  });

  it("domain.ts and lib/ import nothing of Crew above them", () => {
    const wrong: string[] = [];
    for (const [from, { local }] of graph) {
      if (!/^(domain\.ts|lib\/)/.test(from)) continue;
      for (const to of local) if (!to.startsWith("lib/")) wrong.push(`${from} -> ${to}`);
    }
    expect(wrong).toEqual([]);
  });

  it("nothing but the boot entry imports app.ts", () => {
    const importers = [...graph].filter(([, { local }]) => local.includes("app.ts")).map(([from]) => from);
    expect(importers).toEqual(["boot.ts"]);
  });

  it("imports point down the layers", () => {
    expect(upward()).toEqual([]);
  });
});
