/**
 * The floors of src/docs/notes/architecture.md as a test: imports point down only, with no
 * allow-list. Top to bottom:
 *   7 entries: serve*.ts, boot.ts, boot-app.ts, resolve-deps.ts, environment.ts, cli/, mcp/stdio.ts, outbound-connector.ts
 *   6 app.ts (only the server boot loads it)
 *   5 adapters: rest/, mcp/, web/, docs/, oauth/ (each other's, except web/ and oauth/)
 *   4 operations/ (the registry and invoke), background/
 *   3 agents/, integrations/, webhooks/, messages/, demo/
 *   2 auth/, http/ (middleware), html/ (the page kit and the signed-in page frame)
 *   1 store/, deps.ts (the dependency record, types only)
 *   0 bottom: domain.ts, errors.ts, config.ts, lib/
 * Walks every import of src/ (static, type-only, re-exports and dynamic `import()`), so type
 * imports count for the floors and for cycles alike.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
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
  /** the local files loaded at run time (type-only imports and re-exports left out) */
  runtime: string[];
}

const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

/** Specifiers of the imports that survive compilation: static, re-exports and `import()` calls, type-only ones left out. */
function runtimeSpecifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      if (!allTypes) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
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
  const runtime = runtimeSpecifiers(parse(file, text))
    .filter((spec) => spec.startsWith("."))
    .map((spec) => relative(SRC, normalize(join(dirname(file), spec))));
  return { local, bare, runtime };
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
const FLOORS: [RegExp, number][] = [
  [/^(domain|errors|config)\.ts$|^lib\//, 0],
  [/^store\/|^deps\.ts$/, 1],
  [/^(auth|http|html)\//, 2],
  [/^(agents|integrations|webhooks|messages|demo)\//, 3],
  [/^(operations|background)\//, 4],
  [/^mcp\/stdio\.ts$/, 7],
  [/^(rest|mcp|web|docs|oauth)\//, 5],
  [/^app\.ts$/, 6],
  [/^(cli\/|(boot|boot-app|resolve-deps|background|outbound-connector|environment)\.ts$|serve(\.deno|\.bun)?\.ts$)/, 7],
];

const floorOf = (file: string) => FLOORS.find(([re]) => re.test(file))?.[1];

/** Same-floor pairs that may not import each other either way: the web app and the OAuth pages share only html/. */
const APART: [RegExp, RegExp][] = [[/^web\//, /^oauth\//]];

function wrongWay(): string[] {
  const found: string[] = [];
  for (const [from, { local }] of graph) {
    for (const to of local) {
      const a = floorOf(from);
      const b = floorOf(to);
      const apart = APART.some(([x, y]) => (x.test(from) && y.test(to)) || (y.test(from) && x.test(to)));
      if (a === undefined || b === undefined || b > a || apart) found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

/** Files a file loads at run time, transitively: type-only imports and re-exports left out. */
function runtimeClosure(start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !graph.has(file)) return;
    seen.add(file);
    for (const to of graph.get(file)!.runtime) visit(to);
  };
  visit(start);
  return seen;
}

describe("import graph of src/", () => {
  it("has every file on a floor", () => {
    const unplaced = [...graph.keys()].filter((f) => floorOf(f) === undefined && !f.endsWith(".md"));
    expect(unplaced).toEqual([]);
  });

  it("has no import cycle, type-only imports included", () => {
    expect(cycles()).toEqual([]);
  });

  it("imports point down the floors (or along one), with no exception", () => {
    expect(wrongWay()).toEqual([]);
  });

  it("store/ imports only store/, the bottom and its database drivers", () => {
    const wrong: string[] = [];
    for (const [from, { local, bare }] of graph) {
      if (!from.startsWith("store/")) continue;
      for (const to of local) if (!to.startsWith("store/") && floorOf(to) !== 0) wrong.push(`${from} -> ${to}`);
      for (const pkg of bare) if (!["@libsql/client", "libsql", "postgres"].includes(pkg)) wrong.push(`${from} -> ${pkg}`);
    }
    expect(wrong).toEqual([]);
  });

  it("web/ takes only types from store/: pages read and write through the operations (src/docs/notes/architecture.md)", () => {
    const wrong = [...graph]
      .filter(([from]) => from.startsWith("web/"))
      .flatMap(([from, { runtime }]) => runtime.filter((to) => to.startsWith("store/")).map((to) => `${from} -> ${to}`));
    expect(wrong).toEqual([]);
  });

  it("the bottom (domain.ts, errors.ts, config.ts, lib/) imports nothing of Crew above it", () => {
    const wrong: string[] = [];
    for (const [from, { local }] of graph) {
      if (floorOf(from) !== 0) continue;
      for (const to of local) if (floorOf(to) !== 0) wrong.push(`${from} -> ${to}`);
    }
    expect(wrong).toEqual([]);
  });

  it("deps.ts is a type-only record: type imports, interfaces and type aliases, no runtime statement", () => {
    const source = parse("deps.ts", readFileSync(join(SRC, "deps.ts"), "utf8"));
    const runtime = source.statements
      .filter(
        (s) =>
          !ts.isInterfaceDeclaration(s) &&
          !ts.isTypeAliasDeclaration(s) &&
          !(ts.isImportDeclaration(s) && s.importClause?.isTypeOnly) &&
          !(ts.isExportDeclaration(s) && s.isTypeOnly),
      )
      .map((s) => s.getText(source).split("\n")[0]);
    expect(runtime).toEqual([]);
    expect(graph.get("deps.ts")!.local.filter((to) => !to.startsWith("store/") && floorOf(to) !== 0)).toEqual([]);
  });

  it("only the servers' boot (boot-app.ts) imports app.ts, and `crew mcp` never loads it", () => {
    const importers = [...graph].filter(([, { local }]) => local.includes("app.ts")).map(([from]) => from);
    expect(importers).toEqual(["boot-app.ts"]);
    expect(runtimeClosure("mcp/stdio.ts").has("app.ts")).toBe(false);
    expect(runtimeClosure("mcp/stdio.ts").has("mcp/server.ts")).toBe(true);
    expect(runtimeClosure("serve.ts").has("app.ts")).toBe(true);
  });
});
