/**
 * globalSetup of the `postgres` test project (vitest.config.ts): ONE throwaway cluster for the whole
 * run, its admin URL handed to the test files through `provide` (read with `inject`, see
 * test/helpers/database.ts), stopped and removed at teardown. Each test database is created on it
 * by `testDatabaseUrl()`; the cluster's removal takes them all.
 */
import type { TestProject } from "vitest/node";
import { startPostgresCluster } from "../helpers/postgres-cluster.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** postgres://crew@127.0.0.1:PORT/postgres on the run's cluster; empty on the sqlite project. */
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster();
  project.provide("postgresAdminUrl", cluster.adminUrl);
  return () => cluster.stop();
}
