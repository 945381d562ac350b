/**
 * EXPLAIN (ANALYZE, BUFFERS) of the action queue's pages on PostgreSQL, as the server sends them
 * (part of `npm run bench -- --scale N --engine postgres`, src/docs/notes/benchmark.md#postgresql).
 *
 * The statements are the store's own: `listActions` runs against a recorder that keeps the SQL
 * and arguments it would send, and `toPostgres` turns them into what the engine sends. Each is
 * explained twice: with its values (a custom plan, what the first executions of a prepared
 * statement get) and as a generic plan (`plan_cache_mode = force_generic_plan`: what a prepared
 * statement may switch to after five executions, which the engine's `prepare: true` makes the
 * usual case).
 */
import postgres from "postgres";
import { type ActionCursor, type ActionFilter, listActions } from "../src/store/actions/actions.ts";
import type { Db } from "../src/store/db.ts";
import { toPostgres } from "../src/store/engine/postgres-sql.ts";
import type { Seeded } from "./bench-seed.ts";

interface Captured {
  sql: string;
  args: unknown[];
}

/** The one statement `listActions` runs for this page. */
async function pageStatement(orgId: string, filter: ActionFilter, after: ActionCursor | null): Promise<Captured> {
  const captured: Captured[] = [];
  const recorder = {
    engine: "postgres",
    all: async (sql: string, args: unknown[] = []) => {
      captured.push({ sql, args });
      return [];
    },
  } as unknown as Db;
  await listActions(recorder, orgId, filter, 50, after);
  const statement = captured[0];
  if (!statement || captured.length !== 1) throw new Error(`listActions ran ${captured.length} statements`);
  return statement;
}

/** EXECUTE's arguments are expressions whose types come from the prepared statement: literals, quoted. */
const literal = (value: unknown) => (typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`);

export interface Explained {
  name: string;
  custom: string[];
  generic: string[];
}

/** Both plans of each page, with timing and buffers. */
export async function explainPages(url: string, seeded: Seeded): Promise<Explained[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [org] = await sql<{ id: string }[]>`SELECT id FROM organizations WHERE is_default = 1`;
    if (!org) throw new Error("no default organization");
    const pages: [string, ActionFilter, ActionCursor | null][] = [
      ["first page", {}, null],
      ["filtered page (status=pending, type=task)", { status: "pending", type: "task" }, null],
      ["deep cursor page (middle of rank 2)", {}, { rank: 2, id: seeded.middleOfRank2 }],
      ["cursor page after the last critical", {}, { rank: 0, id: seeded.lastCritical }],
    ];
    const out: Explained[] = [];
    for (const [i, [name, filter, after]] of pages.entries()) {
      const statement = await pageStatement(org.id, { ...filter, now: Date.now() }, after);
      const { sql: text, params } = toPostgres(statement.sql, statement.args);
      const plan = async (query: string, values: unknown[]) =>
        (await sql.unsafe<{ "QUERY PLAN": string }[]>(query, values as postgres.ParameterOrJSON<never>[])).map((r) => r["QUERY PLAN"]);
      const custom = await plan(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
      // A named prepared statement, executed under a forced generic plan on this one connection.
      await sql.unsafe(`PREPARE page${i} AS ${text}`);
      await sql.unsafe("SET plan_cache_mode = force_generic_plan");
      const generic = await plan(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE page${i} (${params.map(literal).join(", ")})`, []);
      await sql.unsafe("RESET plan_cache_mode");
      out.push({ name, custom, generic });
    }
    return out;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export function printExplained(explained: Explained[]): void {
  for (const e of explained) {
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS), ${e.name}, custom plan:\n${e.custom.map((l) => `    ${l}`).join("\n")}`);
    console.log(`  generic plan:\n${e.generic.map((l) => `    ${l}`).join("\n")}`);
  }
}
