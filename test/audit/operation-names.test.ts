/**
 * One naming rule for operation exports (src/docs/notes/architecture.md#one-registry-of-operations):
 * each `defineOperation` of src/operations/ is exported as its id followed by `Op`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { operations } from "../../src/operations/index.ts";

const DIR = fileURLToPath(new URL("../../src/operations/", import.meta.url));

/** `export const name = defineOperation({ id: "…"` of every file: [file, export name, id]. */
const definitions = readdirSync(DIR)
  .filter((f) => f.endsWith(".ts"))
  .flatMap((file) =>
    [...readFileSync(join(DIR, file), "utf8").matchAll(/export const (\w+) = defineOperation\(\{\s*id: "(\w+)"/g)].map(
      ([, name, id]) => [file, name, id] as const,
    ),
  );

describe("operation exports", () => {
  it("are named for their id, with Op after it", () => {
    expect(definitions.filter(([, name, id]) => name !== `${id}Op`)).toEqual([]);
  });

  it("are all found by that pattern (every registered operation is defined with it)", () => {
    const ids = new Set(definitions.map(([, , id]) => id));
    expect(operations.map((o) => o.id).filter((id) => !ids.has(id))).toEqual([]);
  });
});
