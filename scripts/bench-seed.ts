/**
 * Bulk rows for `npm run bench -- --scale N` (scripts/bench-scale.ts): N actions written straight
 * into a prepared database, the same rows POST /api/mcp/actions would store (built by the store's
 * own `newActionRow` and `actionInsertStatement`), so both engines start a run with identical
 * data in seconds rather than through 10,000 batched requests.
 *
 * - SQLite: the store's INSERT prepared once on libSQL's native driver, in transactions of 50,000.
 * - PostgreSQL: one `COPY actions (…) FROM STDIN` (text format) through the `postgres` driver's
 *   writable stream, then `VACUUM ANALYZE actions` so the planner has statistics and the rows'
 *   visibility is settled, as autovacuum would leave them.
 *
 * Rows: all pending, from the bench user through the API (source "api"), created over the past
 * year; every third is a follow_up, the rest tasks. Critical actions are only among the newest
 * tenth (an urgent action does not stay open for months): there priorities cycle critical, high,
 * medium, low; before it high, medium, low. So the page after the last critical action must skip
 * nine tenths of the table in id order, which only the queue index does in one seek.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Database from "libsql";
import postgres from "postgres";
import { PRIORITIES } from "../src/domain.ts";
import { actionInsertStatement, newActionRow } from "../src/store/actions/actions.ts";

const YEAR = 365 * 24 * 3600_000;
const SQLITE_TRANSACTION = 50_000;
const COPY_CHUNK = 5_000;

export interface Seeded {
  /** The id of the middle action of priority rank 2 (a deep cursor page starts after it). */
  middleOfRank2: string;
  /** The id of the oldest critical action (rank 0): the page after it starts the high ones. */
  lastCritical: string;
}

/** Row i's priority rank: critical (0) only in the newest tenth. */
const rankOf = (i: number, scale: number) => (i >= scale - Math.ceil(scale / 10) ? i % 4 : 1 + (i % 3));

/** The rows whose ids a run needs: the first rank-2 row from the middle on, and the oldest critical one. */
function marks(scale: number): { middle: number; lastCritical: number } {
  let middle = Math.floor(scale / 2);
  while (middle < scale - 1 && rankOf(middle, scale) !== 2) middle++;
  let lastCritical = scale - Math.ceil(scale / 10);
  while (lastCritical < scale - 1 && rankOf(lastCritical, scale) !== 0) lastCritical++;
  return { middle, lastCritical };
}

/** The organization and user the bench's API key belongs to (the only user of the prepared database). */
interface Owner {
  org_id: string;
  user_id: string;
}

function* rows(owner: Owner, scale: number, now: number) {
  const by = { orgId: owner.org_id, source: "api", createdBy: owner.user_id };
  for (let i = 0; i < scale; i++) {
    const priority = PRIORITIES[rankOf(i, scale)] ?? "low";
    const type = i % 3 === 0 ? "follow_up" : "task";
    yield actionInsertStatement(
      newActionRow({ title: `Scale action ${i}`, priority, type }, { ...by, now: now - YEAR + Math.floor((i * YEAR) / scale) }),
    );
  }
}

const OWNER = "SELECT u.org_id AS org_id, u.id AS user_id FROM users u LIMIT 1";

export async function seedSqlite(path: string, scale: number, now = Date.now()): Promise<Seeded> {
  const conn = new Database(path);
  try {
    const owner = conn.prepare(OWNER).get([]) as Owner;
    let insert: ReturnType<typeof conn.prepare> | null = null;
    const at = marks(scale);
    const seeded: Seeded = { middleOfRank2: "", lastCritical: "" };
    let i = 0;
    conn.exec("BEGIN");
    for (const statement of rows(owner, scale, now)) {
      insert ??= conn.prepare(statement.sql);
      insert.run(statement.args);
      if (i === at.middle) seeded.middleOfRank2 = String(statement.args[0]);
      if (i === at.lastCritical) seeded.lastCritical = String(statement.args[0]);
      if (++i % SQLITE_TRANSACTION === 0) {
        conn.exec("COMMIT");
        conn.exec("BEGIN");
      }
    }
    conn.exec("COMMIT");
    return seeded;
  } finally {
    conn.close();
  }
}

/** COPY's text format: tab-separated, `\N` for null, backslash escapes for the separators. */
const copyValue = (value: unknown) =>
  value === null || value === undefined
    ? "\\N"
    : String(value).replace(/[\\\t\n\r]/g, (ch) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[ch] ?? ch);

export async function seedPostgres(url: string, scale: number, now = Date.now()): Promise<Seeded> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [owner] = await sql.unsafe<Owner[]>(OWNER);
    if (!owner) throw new Error("no user to own the seeded actions");
    // The column list of the store's own INSERT.
    const sample = actionInsertStatement(
      newActionRow({ title: "", priority: "low", type: "task" }, { orgId: "", source: "", createdBy: "", now }),
    );
    const columns = /INSERT INTO actions \(([^)]+)\)/.exec(sample.sql)?.[1] ?? "";
    const at = marks(scale);
    const seeded: Seeded = { middleOfRank2: "", lastCritical: "" };
    async function* lines() {
      let chunk = "";
      let i = 0;
      for (const statement of rows(owner as Owner, scale, now)) {
        if (i === at.middle) seeded.middleOfRank2 = String(statement.args[0]);
        if (i === at.lastCritical) seeded.lastCritical = String(statement.args[0]);
        chunk += `${statement.args.map(copyValue).join("\t")}\n`;
        if (++i % COPY_CHUNK === 0) {
          yield chunk;
          chunk = "";
        }
      }
      if (chunk) yield chunk;
    }
    const copy = await sql.unsafe(`COPY actions (${columns}) FROM STDIN`).writable();
    await pipeline(Readable.from(lines()), copy);
    await sql.unsafe("VACUUM ANALYZE actions");
    return seeded;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
