/**
 * The operating commands of src/docs/notes/operating.md, as entries of the dispatcher's table (src/cli/index.ts):
 * organizations, user and key administration, the audit log, backups and restore, the copy to
 * PostgreSQL. Their implementations load only when one runs (src/cli/admin.ts, src/cli/backups.ts,
 * src/cli/db-copy.ts).
 */
import { type Command, jsonOption, orgOption } from "./support.ts";

const email = { type: "string", value: "E", description: "The user's email address.", required: true } as const;
const limit = { type: "string", value: "N", description: "How many records, newest first (default 50, at most 1000)." } as const;

export const OPERATE_COMMANDS: Command[] = [
  {
    name: "org create",
    summary: "Create an organization with its own 17 agents.",
    options: {
      name: { type: "string", value: "N", description: "A unique name, 1–100 characters.", required: true },
      "time-zone": { type: "string", value: "Z", description: "IANA time zone of its schedules (default: TZ_DEFAULT)." },
      json: jsonOption,
    },
    examples: ["npx crew org create --name 'Acme EU' --time-zone Europe/Paris"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.createOrgFromCli(flags, env, io)),
  },
  {
    name: "org list",
    summary: "List the organizations of this deployment.",
    options: { json: jsonOption },
    examples: ["npx crew org list"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.listOrgsFromCli(flags, env, io)),
  },
  {
    name: "user list",
    summary: "List the users of an organization, with their plan, keys and whether they are active.",
    options: { org: orgOption, json: jsonOption },
    examples: ["npx crew user list --org 'Acme EU'"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.listUsersFromCli(flags, env, io)),
  },
  {
    name: "user reset-password",
    summary: "Print a one-time password reset link (valid 1 hour), or set the password with --password.",
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
    run: (flags, env, io) => import("./admin.ts").then((m) => m.resetPasswordFromCli(flags, env, io)),
  },
  {
    name: "user deactivate",
    summary: "Deactivate a user: their sessions, API keys and OAuth grants stop at once; they cannot sign in.",
    options: { email },
    examples: ["npx crew user deactivate --email former@example.com"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.deactivateUserFromCli(flags, env, io)),
  },
  {
    name: "key list",
    summary: "List a user's active API keys (hash, name, scopes, last use).",
    options: { email, json: jsonOption },
    examples: ["npx crew key list --email ada@example.com"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.listKeysFromCli(flags, env, io)),
  },
  {
    name: "key revoke",
    summary: "Revoke an API key by its hash (from crew key list); the next request with it gets 401.",
    options: { hash: { type: "string", value: "H", description: "The key's SHA-256 hash, 64 hex characters.", required: true } },
    examples: ["npx crew key revoke --hash 3f1c…"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.revokeKeyFromCli(flags, env, io)),
  },
  {
    name: "audit",
    summary: "Print an organization's audit log, newest first.",
    options: { org: orgOption, limit, json: jsonOption },
    examples: ["npx crew audit --limit 20"],
    run: (flags, env, io) => import("./admin.ts").then((m) => m.auditFromCli(flags, env, io)),
  },
  {
    name: "backup",
    summary: "Write a consistent copy of the database while the server runs; prints its path and size.",
    options: {
      to: {
        type: "string",
        value: "FILE",
        description:
          "Where to write it (default: BACKUP_DIR, else backups/ beside the database); s3://bucket/prefix uploads it (BACKUP_S3_ENDPOINT, AWS_*).",
      },
      json: jsonOption,
    },
    examples: ["npx crew backup --to /var/backups/crew/crew-today.db", "npx crew backup --to s3://acme-backups/crew/"],
    notes:
      "Uses SQLite's VACUUM INTO (one read transaction: every write committed before it is in the copy).\n" +
      "Keep the secret file crew-secret (or CREW_SECRET) with your backups: without it the stored\n" +
      "integration credentials cannot be decrypted.",
    run: (flags, env, io) => import("./backups.ts").then((m) => m.backupFromCli(flags, env, io)),
  },
  {
    name: "restore",
    summary: "Replace the database with a backup, after checking its integrity and schema version.",
    positional: { name: "file", value: "FILE", description: "The backup file to restore." },
    options: {
      from: {
        type: "string",
        value: "URL",
        description: "Restore from a bucket instead of a FILE: s3://bucket/prefix/crew-….db, or s3://bucket/prefix for its newest backup.",
      },
      force: { type: "boolean", description: "Restore even while a server leads the scheduler on this database." },
    },
    examples: ["npx crew restore backups/crew-20261124T030000Z.db", "npx crew restore --from s3://acme-backups/crew/"],
    notes:
      "Stop the server first: restoring is refused while a server holds the scheduler lease, unless --force.\n" +
      "The replaced database is kept beside it (crew.db.before-restore-…). A backup from an older release\n" +
      "is brought forward by the migrations; one from a newer release is refused.",
    run: (flags, env, io) => import("./backups.ts").then((m) => m.restoreFromCli(flags, env, io)),
  },
  {
    name: "db copy",
    summary: "Copy the SQLite database into an empty PostgreSQL database, verifying every table's row count.",
    options: {
      to: {
        type: "string",
        value: "URL",
        description: "The PostgreSQL database (postgres://…), which must have none of Crew's tables.",
        required: true,
      },
      from: { type: "string", value: "URL", description: "The SQLite database to copy (default: DATABASE_URL), e.g. file:data/crew.db." },
      json: jsonOption,
    },
    examples: ["npx crew db copy --to postgres://crew@db.internal:5432/crew"],
    notes:
      "Stop every Crew process first (refused while a server leads the scheduler on the SQLite database). Creates\n" +
      "Crew's schema in the target, copies every table in chunks, then prints the row counts of both sides (exit 1\n" +
      "when one differs) and the secret every PostgreSQL process needs: CREW_SECRET set to the contents of the\n" +
      "SQLite install's crew-secret file. See /docs/notes/postgres.",
    run: (flags, env, io) => import("./db-copy.ts").then((m) => m.copyDatabaseFromCli(flags, env, io)),
  },
];
