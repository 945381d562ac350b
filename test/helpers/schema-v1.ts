/**
 * A database exactly as version 1 of Crew shipped it (test/fixtures/schema-v1.sql is schema.sql of
 * that release, kept verbatim), so upgrade tests start from what users really have on disk
 * instead of today's schema with parts cut out.
 */
import { readFileSync } from "node:fs";
import { type Db, openStore } from "../../src/store/db.ts";
import { splitSql } from "../../src/store/migrations.ts";

const V1_SCHEMA = readFileSync(new URL("../fixtures/schema-v1.sql", import.meta.url), "utf8");

export async function openVersion1Store(path: string): Promise<Db> {
  const db = await openStore({ url: `file:${path}` });
  await db.batch(splitSql(V1_SCHEMA), "write");
  return db;
}
