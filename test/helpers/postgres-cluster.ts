/**
 * The tests' throwaway PostgreSQL cluster (src/docs/notes/testing.md#two-engines): the bench's
 * cluster (scripts/postgres-cluster.ts: `initdb` in a temporary folder, a free loopback port, run
 * as the unprivileged `postgres` user under root, stopped and removed at the end), tuned for speed
 * rather than durability, since the data dies with the folder anyway.
 */
import { type PostgresCluster, startPostgresCluster as startCluster } from "../../scripts/postgres-cluster.ts";

export type { PostgresCluster } from "../../scripts/postgres-cluster.ts";

const SETTINGS = ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300"];

/** `CREW_TEST_POSTGRES_LOG=<file>` keeps the server's log (every failed statement with its text). */
export function startPostgresCluster(options: { timeoutMs?: number } = {}): Promise<PostgresCluster> {
  return startCluster({ settings: SETTINGS, timeoutMs: options.timeoutMs, logFile: process.env.CREW_TEST_POSTGRES_LOG });
}
