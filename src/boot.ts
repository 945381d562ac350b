/**
 * Start-up shared by the three runtime entries and the CLI: configuration, data folder and
 * secret, database, schema, default organization and agents. It is the one module besides the
 * entries that touches the file system, through `node:fs`, which Node, Deno and Bun all provide.
 */

import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BackupFiles } from "./background/backups.ts";
import { type Config, ConfigError, loadConfig, type ReadText, withoutPassword } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { databaseFile, requireExistingDatabase, withDotEnv } from "./environment.ts";
import type { Clock } from "./lib/clock.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import { randomSecret } from "./lib/random.ts";
import { readSchema } from "./lib/schema-file.ts";
import { type Db, openStore } from "./store/db.ts";
import { migrate } from "./store/migrations.ts";
import { ensureDefaultOrgAndAgents } from "./store/orgs/orgs.ts";

export { readSchema, SCHEMA_PATH } from "./lib/schema-file.ts";

/** Defined by scripts/build-binary.ts: the notes of /docs embedded in the single executable. */
declare const CREW_EMBEDDED_NOTES: { file: string; text: string }[] | undefined;

/** The Markdown files of src/docs/notes/ (rendered under /docs/notes); none when the folder is missing. */
export function readNotes(): { file: string; text: string }[] {
  if (typeof CREW_EMBEDDED_NOTES !== "undefined") return CREW_EMBEDDED_NOTES;
  const folder = fileURLToPath(new URL("./docs/notes/", import.meta.url));
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((file) => file.endsWith(".md"))
    .map((file) => ({ file, text: readFileSync(join(folder, file), "utf8") }));
}

/** The folder a `file:` database lives in, or null for a remote database. */
export function dataFolder(databaseUrl: string): string | null {
  const file = databaseFile(databaseUrl);
  return file === null ? null : dirname(file); // none for :memory:: the secret goes to data/, as for a remote database
}

/**
/** How entries read `…_FILE` secrets (src/config.ts). */
export const readSecretFile: ReadText = (path) => readFileSync(path, "utf8");

/**
 * CREW_SECRET when set; otherwise the one generated into the data folder on first start
 * (`crew-secret`, mode 0600). A remote database without CREW_SECRET keeps the secret beside the
 * working directory's `data/` folder.
 */
export function ensureSecret(config: Config): string {
  if (config.secret) return config.secret;
  const folder = dataFolder(config.databaseUrl) ?? "data";
  const file = join(folder, "crew-secret");
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (existsSync(file)) return readFileSync(file, "utf8").trim();
    const secret = randomSecret(32);
    try {
      writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    } catch (error) {
      // Another process starting on the same database wrote it first: use theirs.
      if ((error as { code?: string }).code === "EEXIST") return readFileSync(file, "utf8").trim();
      throw error;
    }
    return secret;
  } catch (error) {
    throw new ConfigError(`CREW_SECRET is unset and ${file} (beside DATABASE_URL) cannot be made: ${firstLine(error)}`);
  }
}

/** What every entry starts from: configuration, database and the resolved dependencies (no app). */
export interface BootedDeps {
  config: Config;
  db: Db;
  deps: AppDeps;
  /** Shutdown begins: long-lived responses end now, so the entry's wait for requests in flight is short. */
  stopping(): void;
  close(): Promise<void>;
}

/** The database location without a query string (which may carry an auth token). */
const shownUrl = (url: string) => withoutPassword(url.split("?")[0] ?? url);

/**
 * Opens the database and checks that it answers. A failure here is almost always the location
 * (a folder that cannot be made, a server that is down, a wrong token), so it is reported as a
 * ConfigError naming DATABASE_URL: one line, as src/docs/notes/running.md#start asks for a bad value.
 */
export async function connect(config: Config): Promise<Db> {
  let db: Db | null = null;
  try {
    const folder = dataFolder(config.databaseUrl);
    // A folder made here is the owner's only (0700); the database and its WAL files are 0600:
    // they hold sealed credentials and session hashes, readable by no other account.
    if (folder && !existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
    db = await openStore({ url: config.databaseUrl, authToken: config.databaseAuthToken });
    await db.execute("SELECT 1");
    const file = databaseFile(config.databaseUrl);
    if (file) for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
    return db;
  } catch (error) {
    db?.close();
    throw new ConfigError(`DATABASE_URL ${shownUrl(config.databaseUrl)} cannot be opened: ${firstLine(error)}`);
  }
}

export const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

/**
 * The line every entry prints once listening (tests wait for it); IPv6 hosts in brackets.
 * The one address people should open (src/docs/notes/web-app.md#one-public-address: `{base}` only — a second URL printed beside it
 * invites signing in at an address whose forms are then refused as cross-site). `port` is what
 * was actually bound, shown only when it differs from BASE_URL's (PORT=0).
 */
export function listeningLine(config: Config, port: number): string {
  const base = new URL(config.baseUrl);
  const basePort = Number(base.port || (base.protocol === "https:" ? 443 : 80));
  const bound = port !== config.port && port !== basePort ? ` (bound to port ${port})` : "";
  return `Crew is listening on ${config.baseUrl}${bound}`;
}

/** What an entry prints when start-up fails: one line; the stack only with LOG_LEVEL=debug. */
export function startupFailure(error: unknown, env: Record<string, string | undefined>): string {
  if (error instanceof ConfigError) return `crew: ${error.message}`;
  const detail = env.LOG_LEVEL === "debug" && error instanceof Error && error.stack ? `\n${error.stack}` : "";
  return `crew: cannot start: ${firstLine(error)}${detail}`;
}

/** Opens and prepares the database; idempotent, safe for several processes at once. */
export async function prepareStore(config: Config, log: Logger, now: number): Promise<Db> {
  const db = await connect(config);
  const version = await migrate(db, readSchema());
  await ensureDefaultOrgAndAgents(db, config.defaultTimeZone, now);
  log.debug("database ready", { schema_version: version });
  return db;
}

/**
 * A folder only its owner can read (0700), like `data/`: created so, or tightened when it exists
 * (backups are as private as the database they copy).
 */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * An empty file only its owner can read (0600), for `VACUUM INTO` to fill: SQLite accepts an
 * empty target and keeps its mode, where a file it creates would follow the umask (often 0644).
 */
export function privateEmptyFile(file: string): void {
  writeFileSync(file, "", { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
}

/** The file operations of scheduled backups (src/background/backups.ts). */
export const backupFiles: BackupFiles = {
  async list(dir) {
    if (!existsSync(dir)) return [];
    return readdirSync(dir).map((name) => ({ name, bytes: statSync(join(dir, name)).size }));
  },
  async remove(path) {
    rmSync(path, { force: true });
  },
  async makeDir(dir) {
    privateDir(dir);
  },
  async reserve(file) {
    privateEmptyFile(file);
  },
};

export interface BootOptions {
  clock?: Clock;
  log?: Logger;
  /** Print the first-run setup link when no user exists (servers do; tests may keep stdout quiet). */
  announceSetup?: boolean;
  /** Open only an existing `file:` database, never create one (the stdio MCP server). */
  existingDatabaseOnly?: boolean;
}

/**
 * Configuration, secret, database and dependencies, without the HTTP app or the background tasks:
 * `crew mcp` (stdio) starts from here and builds only the MCP server.
 */
export async function bootDeps(given: Record<string, string | undefined>, options: BootOptions = {}): Promise<BootedDeps> {
  const env = withDotEnv(given);
  const loaded = loadConfig(env, readSecretFile);
  if (options.existingDatabaseOnly) requireExistingDatabase(loaded, env);
  // A new value rather than an assignment: the loaded configuration is never mutated.
  const config: Config = { ...loaded, secret: ensureSecret(loaded) };
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? { now: () => Date.now() };
  const db = await prepareStore(config, log, clock.now());
  // Loaded here rather than at the top, so the CLI's store commands (prepareStore) start without
  // compiling the service.
  const [{ resolveDeps }, { outboundPolicy }] = await Promise.all([import("./resolve-deps.ts"), import("./outbound-connector.ts")]);
  const shutdown = new AbortController();
  const deps = resolveDeps({
    db,
    config,
    clock,
    log,
    outbound: outboundPolicy(config.allowPrivateTargets),
    notes: readNotes(),
    stopping: shutdown.signal,
  });
  return {
    config,
    db,
    deps,
    stopping: () => shutdown.abort(),
    async close() {
      shutdown.abort();
      db.close();
      log.info("database closed");
    },
  };
}
