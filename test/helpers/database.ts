/**
 * Which database engine the tests run on (src/docs/notes/testing.md#two-engines): `sqlite` (a file
 * in the test's temp folder) or `postgres` (a fresh database on the run's cluster, started by
 * test/setup/postgres-global.ts). `CREW_TEST_ENGINE` is set by the vitest project.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import postgres from "postgres";
import { inject } from "vitest";

export type TestEngine = "sqlite" | "postgres";

function engineOf(value: string | undefined): TestEngine {
  if (value === undefined || value === "" || value === "sqlite") return "sqlite";
  if (value === "postgres") return "postgres";
  throw new Error(`CREW_TEST_ENGINE must be sqlite or postgres, got ${JSON.stringify(value)}`);
}

export const TEST_ENGINE: TestEngine = engineOf(process.env.CREW_TEST_ENGINE);

/** The CREW_SECRET of test servers and processes. */
export const TEST_SECRET = "test-secret-test-secret-test-secret-00";

/**
 * The environment that points a process (or loadConfig, or runCli) at `url`: DATABASE_URL, and on
 * PostgreSQL also CREW_SECRET, because there is no data folder to keep a generated one in
 * (src/docs/notes/configuration.md). On SQLite the secret is left to the process, as in production.
 */
export function databaseEnv(url: string): { DATABASE_URL: string; CREW_SECRET?: string } {
  return url.startsWith("file:") ? { DATABASE_URL: url } : { DATABASE_URL: url, CREW_SECRET: TEST_SECRET };
}

/** The run's cluster, as the globalSetup provided it; a clear error when the project has none. */
function adminUrl(): string {
  const url = inject("postgresAdminUrl");
  if (!url) throw new Error("CREW_TEST_ENGINE=postgres but no cluster was provided: run the `postgres` vitest project");
  return url;
}

// One admin connection per test file, closed by itself once idle (a lingering socket must not keep a fork alive).
let admin: postgres.Sql | null = null;
const adminSql = () => (admin ??= postgres(adminUrl(), { max: 1, idle_timeout: 1, onnotice: () => {} }));

/**
 * A database URL for a test: `file:<dir>/<name>.db` on sqlite; on postgres a new, empty database
 * (`crew_<random>`) on the shared cluster — every call a fresh one, `name` only labels it. Left to
 * the cluster's removal at the end of the run.
 */
export async function testDatabaseUrl(dir: string, name = "crew"): Promise<string> {
  if (TEST_ENGINE === "sqlite") return `file:${join(dir, `${name}.db`)}`;
  const database = `crew_${name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "_")
    .slice(0, 20)}_${randomBytes(6).toString("hex")}`;
  // FILE_COPY copies the template's files (one checkpoint) instead of WAL-logging every block: about half the time with fsync off.
  await adminSql().unsafe(`CREATE DATABASE ${database} STRATEGY FILE_COPY`);
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  return url.href;
}
