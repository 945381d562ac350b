import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects (src/docs/notes/testing.md#two-engines): `sqlite` runs every test as always;
 * `postgres` runs the suites that touch the database again on a throwaway PostgreSQL cluster
 * (test/setup/postgres-global.ts). `npm test` runs both; `npm run test:postgres` the second alone.
 */

/** The database-touching suites run on PostgreSQL too; chosen to keep that half near 5 minutes on 2 cores. */
const POSTGRES_SUITES = [
  "test/store/**/*.test.ts",
  "test/quota/**/*.test.ts",
  "test/webhooks/**/*.test.ts",
  "test/rest/**/*.test.ts",
  "test/oauth/**/*.test.ts",
  "test/agents/**/*.test.ts",
  "test/mcp/tools*.test.ts",
  "test/cli/**/*.test.ts",
];

/** About the SQLite file itself, so SQLite-only (src/docs/notes/testing.md#two-engines says why, one by one). */
const SQLITE_ONLY = [
  "test/store/connection.test.ts",
  "test/store/schema-upgrade.test.ts",
  "test/store/query-plans.test.ts",
  "test/store/agents-cache.test.ts",
  "test/store/migrations.test.ts",
  "test/webhooks/secrets-at-rest.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
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
