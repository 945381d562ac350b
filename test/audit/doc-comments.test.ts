/**
 * Every doc comment of src/ documents something (src/docs/notes/architecture.md#rules-of-the-house:
 * comments say why, next to what they are about). A `/** … *\/` block is orphaned when no
 * declaration follows it: another doc comment comes first (the second is the one an editor
 * shows), or the block or the file ends. A file's opening block, about the file, may be followed
 * by the first declaration's own.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
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

/** `file:line` of each doc comment that documents nothing. */
function orphans(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/\/\*\*(?!\/)[\s\S]*?\*\//g)) {
    const before = text.slice(0, match.index);
    const after = text.slice(match.index + match[0].length);
    const fileHeader = before.trim() === "";
    const orphaned = /^\s*$/.test(after) || /^\s*[})\]]/.test(after) || (!fileHeader && /^\s*\/\*\*/.test(after));
    if (orphaned) found.push(`${relative(SRC, file)}:${before.split("\n").length}`);
  }
  return found;
}

describe("doc comments of src/", () => {
  it("each sits above what it documents", () => {
    expect(sourceFiles(SRC).flatMap(orphans)).toEqual([]);
  });
});
