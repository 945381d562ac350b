/** schema.sql, this release's schema (src/store/migrations.ts applies it; src/docs/notes/operating.md#upgrades). */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SCHEMA_PATH = fileURLToPath(new URL("../../schema.sql", import.meta.url));

/** Defined by scripts/build-binary.ts when schema.sql is embedded in the single executable. */
declare const CREW_EMBEDDED_SCHEMA: string | undefined;

export function readSchema(): string {
  if (typeof CREW_EMBEDDED_SCHEMA === "string") return CREW_EMBEDDED_SCHEMA;
  return readFileSync(SCHEMA_PATH, "utf8");
}
