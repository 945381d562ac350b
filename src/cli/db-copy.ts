/**
 * `crew db copy --to postgres://…` (src/docs/notes/postgres.md#moving-a-sqlite-install): the SQLite
 * database of DATABASE_URL (or --from) into an empty PostgreSQL database, by src/store/copy.ts. The
 * source is opened as every command opens it (schema applied, so it is at this release's version);
 * the copy is refused while a server leads the scheduler on it, since what a running server writes
 * during the copy would be missing from it. The output is the count of every table on both sides
 * and the secret every PostgreSQL process needs (src/docs/notes/postgres.md#the-secret).
 */
import { resolve } from "node:path";
import { LEASE_NAME } from "../agents/scheduler.ts";
import { dataFolder, firstLine, readSchema } from "../boot.ts";
import { isPostgresUrl, withoutPassword } from "../config.ts";
import { systemClock } from "../lib/clock.ts";
import { activeLeader } from "../store/backup.ts";
import { CopyFailed, CopyRefused, copyDatabase, type TableCount } from "../store/copy.ts";
import { openStore } from "../store/db.ts";
import { type CliIo, CommandError, type Env, type Flags, printJson, UsageError, withStore } from "./support.ts";

/** Where the SQLite install's secret comes from: the variable this command was given, else the data folder's file. */
function secretSource(env: Env, databaseUrl: string): { file: string | null; note: string } {
  const file = (env.CREW_SECRET_FILE ?? "").trim();
  if (file)
    return { file: resolve(file), note: `Set CREW_SECRET_FILE=${resolve(file)} (the file this copy ran with) on every Crew process` };
  if ((env.CREW_SECRET ?? "").trim()) return { file: null, note: "Set CREW_SECRET to the value this copy ran with on every Crew process" };
  const secretFile = resolve(dataFolder(databaseUrl) ?? "data", "crew-secret");
  return {
    file: secretFile,
    note: `Set CREW_SECRET to the contents of ${secretFile} (or CREW_SECRET_FILE=${secretFile}) on every Crew process`,
  };
}

function countsTable(counts: TableCount[]): string {
  const width = Math.max("table".length, ...counts.map((c) => c.table.length));
  const num = Math.max("postgresql".length, ...counts.map((c) => String(c.source).length));
  const line = (a: string, b: string, c: string, mark = "") => `  ${a.padEnd(width)}  ${b.padStart(num)}  ${c.padStart(num)}${mark}`;
  return [
    line("table", "sqlite", "postgresql"),
    ...counts.map((c) => line(c.table, String(c.source), String(c.target), c.source === c.target ? "" : "  ≠")),
  ].join("\n");
}

export async function copyDatabaseFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const to = typeof flags.to === "string" ? flags.to.trim() : "";
  if (!isPostgresUrl(to)) throw new UsageError("--to must be a postgres:// or postgresql:// URL of an empty database");
  const from = typeof flags.from === "string" ? flags.from.trim() : "";
  if (from && isPostgresUrl(from)) throw new UsageError("--from must be the SQLite database, e.g. file:data/crew.db");
  // --from replaces DATABASE_URL for this command only; the rest of the configuration is the server's.
  const sourceEnv: Env = from ? { ...env, DATABASE_URL: from, DATABASE_URL_FILE: undefined } : env;
  if (!from && isPostgresUrl((env.DATABASE_URL ?? "").trim())) {
    throw new UsageError("DATABASE_URL is PostgreSQL already: name the SQLite database to copy with --from file:…");
  }
  return withStore(sourceEnv, async (source, _org, config) => {
    const leader = await activeLeader(source, LEASE_NAME, systemClock.now());
    if (leader) {
      throw new CommandError(
        `refused: a server leads the scheduler on this database (${leader}); stop every Crew process first, or what they write during the copy is lost`,
      );
    }
    let target: Awaited<ReturnType<typeof openStore>>;
    try {
      target = await openStore({ url: to });
    } catch (error) {
      throw new CommandError(`--to ${withoutPassword(to)} cannot be opened: ${firstLine(error)}`);
    }
    try {
      const result = await copyDatabase(source, target, readSchema()).catch((error) => {
        if (error instanceof CopyRefused) throw new CommandError(`refused: ${error.message}; nothing was written`);
        if (error instanceof CopyFailed) throw new CommandError(`the copy failed and what it wrote was removed: ${error.message}`);
        throw error;
      });
      const shownFrom = withoutPassword(config.databaseUrl.split("?")[0] ?? "");
      const shownTo = withoutPassword(to.split("?")[0] ?? "");
      const secret = secretSource(sourceEnv, config.databaseUrl);
      const differ = result.counts.filter((c) => c.source !== c.target);
      const rows = result.counts.reduce((sum, c) => sum + c.target, 0);
      if (flags.json)
        printJson(io, {
          from: shownFrom,
          to: shownTo,
          tables: result.counts,
          rows,
          skipped: result.skipped,
          secretFile: secret.file,
          secretNote: secret.note,
        });
      else {
        io.out(`Copied ${shownFrom} into ${shownTo}:\n\n${countsTable(result.counts)}\n\n`);
        if (differ.length === 0) {
          io.out(
            [
              `Every count matches: ${result.counts.length} tables, ${rows} rows.`,
              "Next:",
              `  ${secret.note}: the stored webhook signing secrets, model keys and integration credentials (Slack, calendars, sources) are sealed with it.`,
              `  Set DATABASE_URL=${shownTo} on every Crew process, and start them.`,
              "  Back up the PostgreSQL database with pg_dump (crew backup is for SQLite).",
              "",
            ].join("\n"),
          );
        }
      }
      if (result.skipped.length > 0) io.err(`Not copied (not Crew's tables): ${result.skipped.join(", ")}.\n`);
      if (differ.length > 0) {
        throw new CommandError(
          `the counts differ for ${differ.map((c) => `${c.table} (${c.source} in SQLite, ${c.target} in PostgreSQL)`).join(", ")}: did a process write to the SQLite database during the copy? Drop the PostgreSQL database's tables and copy again with every Crew process stopped`,
        );
      }
      return 0;
    } finally {
      target.close();
    }
  });
}
