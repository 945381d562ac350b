/**
 * `crew migrate` and `crew seed [--demo]` (src/docs/notes/cli.md): preparing a database. Opening the store
 * already applies the schema and ensures the default organization with its 17 agents (src/boot.ts);
 * these commands report that, and `--demo` loads demo content on top (src/demo/seed.ts).
 */

import { readSchema } from "../boot.ts";
import type { DemoSummary } from "../demo/seed.ts";
import { systemClock } from "../lib/clock.ts";
import { migrate } from "../store/migrations.ts";
import type { Organization } from "../store/orgs/orgs.ts";
import { type CliIo, type Env, type Flags, withStore } from "./support.ts";

/** The database location without a query string (which may carry an auth token). */
const shownUrl = (url: string) => url.split("?")[0];

export async function migrateFromCli(env: Env, io: CliIo): Promise<number> {
  return withStore(
    env,
    async (db, _org, config) => {
      const version = await migrate(db, readSchema());
      io.out(`Database ${shownUrl(config.databaseUrl)} is at schema version ${version}.\n`);
      return 0;
    },
    undefined,
    { create: true },
  );
}

export async function seedFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withStore(
    env,
    async (db, org) => {
      if (!flags.demo) {
        io.out(`${org.name} and its 17 agents are in place (add --demo for demo content).\n`);
        return 0;
      }
      const { seedDemo } = await import("../demo/seed.ts"); // the demo content is large: only for --demo
      io.out(`${demoReport(await seedDemo(db, org, systemClock.now()), org)}\n`);
      return 0;
    },
    flags.org,
  );
}

function demoReport(summary: DemoSummary, org: Organization): string {
  const { health, rows } = summary;
  return [
    `Loaded demo content into ${org.name}${summary.replaced ? ` (replacing ${summary.replaced} rows of the previous demo)` : ""}:`,
    `  agents: ${health.green} green, ${health.stale} stale, ${health.error} error, ${health.never_ran} never ran (${rows.agent_runs} runs)`,
    `  ${rows.standups} standups, ${rows.profiles} company profile, ${rows.suggestions} suggestions, ${rows.actions} actions`,
    `  ${rows.contacts} contacts, ${rows.handoffs} handoffs, ${rows.insights} insights, ${rows.integration_alerts} integration alerts`,
    `  ${rows.briefings} ${rows.briefings === 1 ? "briefing" : "briefings"} (one per user of the organization; users created later get theirs on first request)`,
  ].join("\n");
}
