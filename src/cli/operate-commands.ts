/**
 * The operating commands of SPEC §14, as entries of the dispatcher's table (src/cli/index.ts):
 * organizations, user and key administration, the audit log, backups and restore. Their
 * implementations load only when one runs (src/cli/admin.ts, src/cli/backups.ts).
 */
import { type Command, jsonOption, orgOption } from "./support.ts";

const email = { type: "string", value: "E", description: "The user's email address.", required: true } as const;
const limit = { type: "string", value: "N", description: "How many records, newest first (default 50, at most 1000)." } as const;

export const OPERATE_COMMANDS: Command[] = [
  {
    name: "org create",
    summary: "Create an organization with its own 17 agents.",
    usage: "crew org create --name N [--time-zone Z] [--json]",
    options: {
      name: { type: "string", value: "N", description: "A unique name, 1–100 characters.", required: true },
      "time-zone": { type: "string", value: "Z", description: "IANA time zone of its schedules (default: TZ_DEFAULT)." },
      json: jsonOption,
    },
    examples: ["npx crew org create --name 'Acme EU' --time-zone Europe/Paris"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).createOrgFromCli(flags, env, io);
    },
  },
  {
    name: "org list",
    summary: "List the organizations of this deployment.",
    usage: "crew org list [--json]",
    options: { json: jsonOption },
    examples: ["npx crew org list"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).listOrgsFromCli(flags, env, io);
    },
  },
  {
    name: "user list",
    summary: "List the users of an organization, with their plan, keys and whether they are active.",
    usage: "crew user list [--org ORG] [--json]",
    options: { org: orgOption, json: jsonOption },
    examples: ["npx crew user list --org 'Acme EU'"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).listUsersFromCli(flags, env, io);
    },
  },
  {
    name: "user reset-password",
    summary: "Print a one-time password reset link (valid 1 hour), or set the password with --password.",
    usage: "crew user reset-password --email E [--password P]",
    options: {
      email,
      password: {
        type: "string",
        value: "P",
        description: "Set this password now instead (at least 8 characters); ends the user's sessions.",
      },
    },
    examples: ["npx crew user reset-password --email ada@example.com"],
    notes: "The link signs the user in once, after they choose a new password; it expires after one hour.",
    async run(flags, env, io) {
      return (await import("./admin.ts")).resetPasswordFromCli(flags, env, io);
    },
  },
  {
    name: "user deactivate",
    summary: "Deactivate a user: their sessions, API keys and OAuth grants stop at once; they cannot sign in.",
    usage: "crew user deactivate --email E",
    options: { email },
    examples: ["npx crew user deactivate --email former@example.com"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).deactivateUserFromCli(flags, env, io);
    },
  },
  {
    name: "key list",
    summary: "List a user's active API keys (hash, name, scopes, last use).",
    usage: "crew key list --email E [--json]",
    options: { email, json: jsonOption },
    examples: ["npx crew key list --email ada@example.com"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).listKeysFromCli(flags, env, io);
    },
  },
  {
    name: "key revoke",
    summary: "Revoke an API key by its hash (from crew key list); the next request with it gets 401.",
    usage: "crew key revoke --hash H",
    options: { hash: { type: "string", value: "H", description: "The key's SHA-256 hash, 64 hex characters.", required: true } },
    examples: ["npx crew key revoke --hash 3f1c…"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).revokeKeyFromCli(flags, env, io);
    },
  },
  {
    name: "audit",
    summary: "Print an organization's audit log, newest first.",
    usage: "crew audit [--org ORG] [--limit N] [--json]",
    options: { org: orgOption, limit, json: jsonOption },
    examples: ["npx crew audit --limit 20"],
    async run(flags, env, io) {
      return (await import("./admin.ts")).auditFromCli(flags, env, io);
    },
  },
  {
    name: "backup",
    summary: "Write a consistent copy of the database while the server runs; prints its path and size.",
    usage: "crew backup [--to FILE] [--json]",
    options: {
      to: { type: "string", value: "FILE", description: "Where to write it (default: BACKUP_DIR, else backups/ beside the database)." },
      json: jsonOption,
    },
    examples: ["npx crew backup --to /var/backups/crew/crew-today.db"],
    notes:
      "Uses SQLite's VACUUM INTO (one read transaction: every write committed before it is in the copy).\n" +
      "Keep the secret file crew-secret (or CREW_SECRET) with your backups: without it the stored\n" +
      "integration credentials cannot be decrypted.",
    async run(flags, env, io) {
      return (await import("./backups.ts")).backupFromCli(flags, env, io);
    },
  },
  {
    name: "restore",
    summary: "Replace the database with a backup, after checking its integrity and schema version.",
    usage: "crew restore FILE [--force]",
    positional: { name: "file", value: "FILE", description: "The backup file to restore." },
    options: {
      force: { type: "boolean", description: "Restore even while a server leads the scheduler on this database." },
    },
    examples: ["npx crew restore backups/crew-20261124T030000Z.db"],
    notes:
      "Stop the server first: restoring is refused while a server holds the scheduler lease, unless --force.\n" +
      "The replaced database is kept beside it (crew.db.before-restore-…). A backup from an older release\n" +
      "is brought forward by the migrations; one from a newer release is refused.",
    async run(flags, env, io) {
      return (await import("./backups.ts")).restoreFromCli(flags, env, io);
    },
  },
];
