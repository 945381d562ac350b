/**
 * One configuration for the server and the CLI (src/docs/notes/operating.md): both read a `.env` file in the working
 * directory when there is one (variables already set in the environment win), and a CLI command
 * that only reads or changes data refuses a `file:` database that does not exist yet, instead of
 * creating an empty one beside whatever folder it was started in. Light on purpose: the CLI's
 * dispatcher and boot.ts load it before any store driver.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as util from "node:util";
import { type Config, ConfigError } from "./config.ts";

type Env = Record<string, string | undefined>;

/** `env` over the variables of `{cwd}/.env` (node:util's dotenv parser); `env` unchanged when there is none. */
export function withDotEnv(env: Env, cwd: string = process.cwd()): Env {
  const file = join(cwd, ".env");
  // Bun loads .env into the environment itself and Deno may lack parseEnv: then nothing to add here.
  const parse = (util as { parseEnv?: (text: string) => Record<string, string> }).parseEnv;
  if (!parse || !existsSync(file)) return env;
  const fromFile = parse(readFileSync(file, "utf8"));
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
  return { ...fromFile, ...set };
}

/** The file of a `file:` database, or null for a remote or in-memory database. */
export function databaseFile(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith("file:")) return null;
  const path = databaseUrl.slice("file:".length).split("?")[0] ?? "";
  if (path.includes(":memory:")) return null;
  return path.startsWith("//") ? path.slice(2) : path;
}

/**
 * A `file:` database must already exist: creating an empty one (and a secret beside it) in whatever
 * folder the command was started in would only lead to "unknown key", or a backup of nothing. The
 * message names the path tried and DATABASE_URL.
 */
export function requireExistingDatabase(config: Config, env: Env): void {
  const file = databaseFile(config.databaseUrl);
  if (file === null || existsSync(file)) return;
  const how = (env.DATABASE_URL ?? env.DATABASE_URL_FILE ?? "").trim()
    ? `DATABASE_URL names ${resolve(file)}`
    : `DATABASE_URL is not set, so the default data/crew.db of the current folder was tried: ${resolve(file)}`;
  throw new ConfigError(
    `no Crew database found (${how}); set DATABASE_URL to your server's database (or put it in .env), e.g. file:/srv/crew/data/crew.db`,
  );
}
