import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects (src/docs/notes/testing.md#two-engines): `sqlite` runs every test as always;
 * `postgres` runs the suites that touch the database again on a throwaway PostgreSQL cluster
 * (test/setup/postgres-global.ts). `npm test` runs both; `npm run test:postgres` the second alone.
 */

/** Every suite runs on PostgreSQL too, but those below (src/docs/notes/testing.md#two-engines says why). */
const POSTGRES_SUITES = ["test/**/*.test.ts"];

/** About the SQLite file itself, so SQLite-only (src/docs/notes/testing.md#two-engines says why, one by one). */
const SQLITE_ONLY = [
  "test/store/connection.test.ts",
  "test/store/schema-upgrade.test.ts",
  "test/store/query-plans.test.ts",
  "test/store/agents-cache.test.ts",
  "test/webhooks/secrets-at-rest.test.ts",
  "test/ops/backup.test.ts",
  "test/ops/scheduled-backups.test.ts",
  "test/ops/s3-backups.test.ts",
  "test/ops/readme-backups.test.ts",
  "test/e2e/runtimes.test.ts",
  "test/e2e/deno-write-permission.test.ts",
  // `npm start` with its default database file, as a first-time user runs it.
  "test/e2e/npm-start.test.ts",
  // Not about the database: the official conformance suite under Bun, a process's shutdown, Chromium
  // driving MCP Apps' views (the same views' data is tested on both engines in test/mcp/apps.test.ts).
  "test/mcp/conformance*.test.ts",
  "test/mcp/subscriptions-shutdown.test.ts",
  "test/mcp/apps-browser.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Test files share their worker process (src/docs/notes/testing.md#one-worker-many-files): the
    // app's modules load once per worker, not once per file, which was a third of the suite's time.
    // So a test file leaves no global state behind (env, timers, module-level values).
    isolate: false,
    // Two at a time on CI's 2 cores: most of a test's time is spent waiting on a server, a process
    // or a browser, not computing.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: "sqlite", include: ["test/**/*.test.ts", "src/**/*.test.ts"] },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: POSTGRES_SUITES,
          exclude: [...configDefaults.exclude, ...SQLITE_ONLY],
          env: { CREW_TEST_ENGINE: "postgres" },
          globalSetup: ["test/setup/postgres-global.ts"],
        },
      },
    ],
  },
});
