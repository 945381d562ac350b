/**
 * What the `crew` command implementations share (src/cli/users.ts, src/cli/database.ts, …): the two
 * error kinds the dispatcher in src/cli/index.ts turns into exit codes, the store opened on the default
 * organization, and flag and output helpers. Light on purpose: src/cli/index.ts loads it for `--help`.
 */
import * as v from "valibot";
import { type Config, loadConfig } from "../config.ts";
import { requireExistingDatabase } from "../environment.ts";
import { systemClock } from "../lib/clock.ts";
import { Email, Title } from "../operations/schemas.ts";
import type { Db } from "../store/db.ts";
import type { Organization } from "../store/orgs/orgs.ts";

export type Env = Record<string, string | undefined>;
export type Flags = Record<string, string | boolean | undefined>;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export interface Option {
  type: "string" | "boolean";
  value?: string;
  description: string;
  required?: boolean;
}

/**
 * One row of the command table (src/cli/index.ts, src/cli/operate-commands.ts): what `--help`
 * shows and the implementation, loaded only when the command runs.
 */
export interface Command {
  name: string;
  summary: string;
  /** Written out only when the options cannot say it (alternative forms); else derived by `usageOf`. */
  usage?: string;
  options: Record<string, Option>;
  /** One positional argument, stored in the flags under `name` (e.g. `crew agents run <agent>`). */
  positional?: { name: string; value: string; description: string };
  examples: string[];
  notes?: string;
  /** Resolves to an exit code, or to "running" for commands that keep the process alive. */
  run(flags: Flags, env: Env, io: CliIo): Promise<number | "running">;
}

/** `crew NAME <positional> --required V [--optional V] [--flag]`, in the options' order. */
export function usageOf(command: Command): string {
  if (command.usage) return command.usage;
  const options = Object.entries(command.options).map(([name, o]) => {
    const flag = `--${name}${o.value ? ` ${o.value}` : ""}`;
    return o.required ? flag : `[${flag}]`;
  });
  return ["crew", command.name, ...(command.positional ? [command.positional.value] : []), ...options].join(" ");
}

export const jsonOption: Option = { type: "boolean", description: "Print the result as JSON." };

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}
/** The command was well-formed but cannot be carried out: exit code 1. */
export class CommandError extends Error {}

/**
 * Opens the store from the environment (applying the schema), runs `work` on one organization —
 * `orgRef` (an `--org` value: id or name) or the default one — and closes it. A `file:` database
 * that does not exist is refused unless `create` (`migrate`, `user create`: the scripted install).
 * `asIs` opens it without applying the schema or migrations (`backup`, `restore`: a backup is a
 * copy of the database as it is, restorable by the release that wrote it).
 */
export async function withStore<T>(
  env: Env,
  work: (db: Db, org: Organization, config: Config) => Promise<T>,
  orgRef?: string | boolean,
  options: { create?: boolean; asIs?: boolean } = {},
): Promise<T> {
  // Loaded here, not above: the store drivers are the slow part of starting (see src/cli/index.ts).
  const [{ prepareStore, connect, ensureSecret, readSecretFile }, { createLogger }, { getDefaultOrg, findOrg }] = await Promise.all([
    import("../boot.ts"),
    import("../lib/log.ts"),
    import("../store/orgs/orgs.ts"),
  ]);
  const loaded = loadConfig(env, readSecretFile);
  if (!options.create) requireExistingDatabase(loaded, env);
  const db = options.asIs ? await connect(loaded) : await prepareStore(loaded, createLogger(loaded.logLevel), systemClock.now());
  // Commands seal secrets (webhooks) as the server would: the same CREW_SECRET or generated one.
  const config: Config = { ...loaded, secret: ensureSecret(loaded) };
  try {
    const ref = typeof orgRef === "string" ? orgRef.trim() : "";
    const org = ref ? await findOrg(db, ref) : await getDefaultOrg(db);
    if (!org)
      throw new CommandError(ref ? `no organization with id or name "${ref}" (see crew org list)` : "the default organization is missing");
    return await work(db, org, config);
  } finally {
    db.close();
  }
}

export function parseEmail(value: string): string {
  const result = v.safeParse(Email, value);
  if (!result.success) throw new UsageError(`--email "${value}" is not a valid email address`);
  return result.output;
}

export function parseTitle(flag: string, value: string, max: number): string {
  const result = v.safeParse(Title, value);
  // Characters as the API counts them (code points): 100 emoji are a valid key name.
  if (!result.success || [...result.output].length > max) throw new UsageError(`--${flag} must be 1–${max} characters`);
  return result.output;
}

/** The `--org` option of every command that acts on one organization. */
export const orgOption = {
  type: "string",
  value: "ORG",
  description: "The organization, by id or name (default: the default organization).",
} as const;

/** A `--json` record on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}
