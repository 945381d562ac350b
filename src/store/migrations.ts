/**
 * Schema versions. A fresh database gets `schema.sql` (the current schema, which records its own
 * version); an existing one is brought forward by the ordered steps below, each applied in one
 * batch (a transaction) together with its version bump. To change the schema: edit schema.sql,
 * bump its version line, and append a step here that takes version N-1 to N.
 */
import { type Db, isUniqueViolation } from "./db.ts";
import { BUMP_FUNCTION, postgresSchema, postgresStatement } from "./engine/postgres-schema.ts";

export interface Migration {
  /** The version this step produces. */
  version: number;
  /** What the step does, in a few words (recorded in schema_meta as `migration:N`'s step). */
  name: string;
  /** SQLite's statements (and PostgreSQL's, through engine/postgres-schema.ts, unless `postgres` says otherwise). */
  statements: string[];
  /** PostgreSQL's own statements, when the converted SQLite ones would not do. */
  postgres?: string[];
}

/**
 * Issue 13: user roles (owner/member), deactivation, and one-time sign-in links. The first user of each
 * organization completed setup (or was created first by the CLI), so it becomes the owner.
 */
export const ROLES_AND_SIGN_IN_LINKS: string[] = [
  "ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member'))",
  "ALTER TABLE users ADD COLUMN deactivated_at INTEGER",
  `UPDATE users SET role = 'owner' WHERE id IN (
     SELECT (SELECT u.id FROM users u WHERE u.org_id = o.id ORDER BY u.created_at, u.id LIMIT 1) FROM organizations o)`,
  `CREATE TABLE IF NOT EXISTS sign_in_links (
     token_hash TEXT PRIMARY KEY,
     user_id    TEXT NOT NULL REFERENCES users (id),
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at    INTEGER
   ) STRICT`,
];

/**
 * Issue 10: list queries read from indexes in the order they return (no sort of a growing set),
 * and indexes for the retention pass. Changed indexes are dropped and created again.
 */
export const LIST_INDEXES_AND_AGENTS_VERSION: string[] = [
  ...[
    "actions_queue ON actions (org_id, priority_rank, id DESC)",
    "standups_latest ON standups (org_id, mode, generated_at, id)",
    "briefings_latest ON briefings (user_id, generated_at, id)",
    "suggestions_order ON suggestions (org_id, priority_rank, created_at DESC, id DESC)",
    "profiles_latest ON profiles (org_id, generated_at, id)",
    "handoffs_queue ON handoffs (org_id, to_agent, status, priority_rank, created_at, id)",
    "insights_feed ON insights (org_id, created_at, id)",
    "agent_runs_history ON agent_runs (org_id, agent_id, started_at, id)",
  ].flatMap((index) => [`DROP INDEX IF EXISTS ${index.split(" ")[0]}`, `CREATE INDEX ${index}`]),
  "CREATE INDEX IF NOT EXISTS users_org_created ON users (org_id, created_at)",
  "CREATE INDEX IF NOT EXISTS agents_position ON agents (org_id, position)",
  "CREATE INDEX IF NOT EXISTS standups_any_mode ON standups (org_id, generated_at, id)",
  "CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at)",
  "CREATE INDEX IF NOT EXISTS sign_in_failures_age ON sign_in_failures (failed_at)",
  "CREATE INDEX IF NOT EXISTS quota_windows_age ON quota_windows (window_start)",
  "CREATE INDEX IF NOT EXISTS webhook_deliveries_age ON webhook_deliveries (status, created_at)",
  "CREATE INDEX IF NOT EXISTS contacts_org ON contacts (org_id, relationship)",
  "CREATE INDEX IF NOT EXISTS agent_runs_age ON agent_runs (started_at)",
  "CREATE INDEX IF NOT EXISTS briefings_age ON briefings (generated_at)",
  "CREATE INDEX IF NOT EXISTS standups_age ON standups (generated_at)",
  // The agents list cache's version (store/runs/agents.ts), bumped by every write to agents or agent_runs.
  "INSERT OR IGNORE INTO schema_meta (key, value) VALUES ('agents_version', '0')",
  ...["agent_runs", "agents"].flatMap((table) =>
    ["INSERT", "UPDATE", "DELETE"].map(
      (event) =>
        `CREATE TRIGGER IF NOT EXISTS ${table}_version_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END`,
    ),
  ),
];
/** Issue 14 (src/docs/notes/operating.md#upgrades): audit log, password reset links, user deactivations (the block in schema.sql). */
export const AUDIT_LOG_AND_RESETS: string[] = [
  `CREATE TABLE IF NOT EXISTS audit_events (
    id TEXT PRIMARY KEY, org_id TEXT NOT NULL, at INTEGER NOT NULL, event TEXT NOT NULL,
    actor_kind TEXT NOT NULL, actor_id TEXT, subject TEXT, detail TEXT NOT NULL DEFAULT '{}'
  ) STRICT`,
  "CREATE INDEX IF NOT EXISTS audit_events_org ON audit_events (org_id, at, id)",
  "CREATE UNIQUE INDEX IF NOT EXISTS organizations_name ON organizations (name)",
  `CREATE TABLE IF NOT EXISTS password_resets (
    token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id), created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL, used_at INTEGER
  ) STRICT`,
  "CREATE TABLE IF NOT EXISTS user_deactivations (user_id TEXT PRIMARY KEY REFERENCES users (id), at INTEGER NOT NULL) STRICT",
];

/** Issue 12 (sources of the model-backed agents): the `sources` table, as in schema.sql. */
export const SOURCES: string[] = [
  `CREATE TABLE IF NOT EXISTS sources (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('imap', 'feed')),
  config      TEXT NOT NULL,
  agents      TEXT NOT NULL,
  state       TEXT NOT NULL DEFAULT '{}',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
) STRICT`,
  "CREATE UNIQUE INDEX IF NOT EXISTS sources_one_mailbox ON sources (org_id) WHERE kind = 'imap'",
  "CREATE INDEX IF NOT EXISTS sources_org ON sources (org_id, kind)",
];

/** Issue 12 (the model connection): model settings, instruction overrides, tokens per run, as in schema.sql. */
export const MODEL_CONNECTION: string[] = [
  `CREATE TABLE IF NOT EXISTS model_settings (
  org_id       TEXT PRIMARY KEY,
  provider     TEXT NOT NULL CHECK (provider IN ('openai-compatible', 'openai', 'anthropic')),
  base_url     TEXT,
  model        TEXT NOT NULL,
  api_key      TEXT,
  daily_tokens INTEGER,
  updated_at   INTEGER NOT NULL
) STRICT`,
  `CREATE TABLE IF NOT EXISTS agent_instructions (
  org_id       TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  instructions TEXT NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id)
) STRICT, WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS run_usage (
  run_id     TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  agent_id   TEXT NOT NULL,
  tokens_in  INTEGER NOT NULL,
  tokens_out INTEGER NOT NULL,
  at         INTEGER NOT NULL
) STRICT`,
  "CREATE INDEX IF NOT EXISTS run_usage_day ON run_usage (org_id, at)",
  // The model-backed agents' default schedules (src/agents/catalog.ts), where none was set.
  `UPDATE agents SET schedule = CASE id
     WHEN 'inbox' THEN '10 * * * *' WHEN 'calendar' THEN '0 7 * * 1-5' WHEN 'compliance' THEN '0 6 * * 1'
     WHEN 'corpdev' THEN '30 6 * * 1' WHEN 'research' THEN '15 6 * * *' WHEN 'growth' THEN '0 9 * * 1'
     WHEN 'content' THEN '45 6 * * 1,4' WHEN 'bdr' THEN '0 9 * * 1-5' WHEN 'revenue' THEN '0 17 * * 5'
     WHEN 'sales' THEN '30 8 * * 1-5' WHEN 'finance' THEN '0 9 * * 1' WHEN 'product' THEN '0 10 * * 1' END
   WHERE schedule IS NULL AND id IN ('inbox', 'calendar', 'compliance', 'corpdev', 'research', 'growth', 'content', 'bdr', 'revenue', 'sales', 'finance', 'product')`,
];

/**
 * Indexes in the order the lists added since version 1 read (issue 10's rule, applied to the web
 * app's contacts, feed and handoffs, GET /api/mcp/contacts, the model's recent contacts and the
 * audit log): each answers from an index instead of sorting the organization's whole table.
 */
export const LIST_ORDER_INDEXES: string[] = [
  "CREATE INDEX IF NOT EXISTS contacts_by_name ON contacts (org_id, name_key, id)",
  "CREATE INDEX IF NOT EXISTS contacts_recent ON contacts (org_id, updated_at, id)",
  "CREATE INDEX IF NOT EXISTS insights_newest ON insights (org_id, id)",
  "CREATE INDEX IF NOT EXISTS handoffs_by_rank ON handoffs (org_id, priority_rank, id DESC)",
  "CREATE INDEX IF NOT EXISTS audit_events_newest ON audit_events (org_id, id)",
];

/**
 * Follow-up to the merges of issues 13 and 14, which each stored deactivation and one-time links:
 * deactivation is `users.deactivated_at` alone (a deactivated user's password becomes unusable, as
 * issue 13 does it), and reset links become `sign_in_links` rows with purpose 'reset'.
 */
export const FOLD_USER_ADMIN: string[] = [
  `UPDATE users SET password_hash = '!deactivated',
     deactivated_at = coalesce(deactivated_at, (SELECT d.at FROM user_deactivations d WHERE d.user_id = users.id))
   WHERE id IN (SELECT user_id FROM user_deactivations)`,
  "ALTER TABLE sign_in_links ADD COLUMN purpose TEXT NOT NULL DEFAULT 'welcome' CHECK (purpose IN ('welcome', 'reset'))",
  `INSERT OR IGNORE INTO sign_in_links (token_hash, user_id, created_at, expires_at, used_at, purpose)
     SELECT token_hash, user_id, created_at, expires_at, used_at, 'reset' FROM password_resets`,
  "DROP TABLE IF EXISTS password_resets",
  "DROP TABLE IF EXISTS user_deactivations",
];

/**
 * Issue 25: agents pause themselves after failed scheduled runs (failed_runs counts the streak,
 * paused_at/paused_reason say since when and why) and carry their own daily token cap; the 80 %
 * budget warning is sent once per budget per day (budget_warnings claims it); OIDC identities
 * link an (issuer, subject) to a user.
 */
export const AGENT_PAUSE_BUDGETS_AND_IDENTITIES: string[] = [
  "ALTER TABLE agents ADD COLUMN failed_runs INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE agents ADD COLUMN paused_at INTEGER",
  "ALTER TABLE agents ADD COLUMN paused_reason TEXT",
  "ALTER TABLE agents ADD COLUMN daily_tokens INTEGER",
  `CREATE TABLE IF NOT EXISTS budget_warnings (
  org_id   TEXT NOT NULL,
  agent_id TEXT NOT NULL,                      -- '' for the organization's budget
  day      TEXT NOT NULL,                      -- YYYY-MM-DD (UTC), the budget's day
  at       INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id, day)
) STRICT`,
  `CREATE TABLE IF NOT EXISTS user_identities (
  issuer     TEXT NOT NULL,
  subject    TEXT NOT NULL,
  user_id    TEXT NOT NULL REFERENCES users (id),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject)
) STRICT`,
  "CREATE INDEX IF NOT EXISTS user_identities_user ON user_identities (user_id)",
];

/**
 * Issue 22: delivery where people work. `messages` is the outbox of mail, Slack and Teams messages,
 * claimed and retried like webhook_deliveries (one atomic claim with a lease, the outcome recorded
 * only by the current claim); `dedupe_key` makes "at most one briefing mail per user per day" a
 * constraint. Per-user notification preferences, one-click mail links (only the SHA-256 stored) and
 * the organization's Slack and Teams connections (secrets sealed).
 */
export const MESSAGE_OUTBOX_AND_CHANNELS: string[] = [
  `CREATE TABLE IF NOT EXISTS messages (
     id              TEXT PRIMARY KEY,
     org_id          TEXT NOT NULL,
     user_id         TEXT,
     channel         TEXT NOT NULL CHECK (channel IN ('email', 'slack', 'teams')),
     kind            TEXT NOT NULL,
     dedupe_key      TEXT UNIQUE,
     payload         TEXT NOT NULL,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
     attempts        INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER,
     locked_until    INTEGER,
     last_attempt_at INTEGER,
     last_error      TEXT,
     created_at      INTEGER NOT NULL,
     updated_at      INTEGER NOT NULL
   ) STRICT`,
  "CREATE INDEX IF NOT EXISTS messages_due ON messages (status, next_attempt_at)",
  "CREATE INDEX IF NOT EXISTS messages_log ON messages (org_id, id)",
  `CREATE TABLE IF NOT EXISTS notification_prefs (
     user_id        TEXT PRIMARY KEY REFERENCES users (id),
     briefing_email INTEGER NOT NULL DEFAULT 1,
     briefing_slack INTEGER NOT NULL DEFAULT 0,
     updated_at     INTEGER NOT NULL
   ) STRICT`,
  `CREATE TABLE IF NOT EXISTS mail_links (
     token_hash TEXT PRIMARY KEY,
     user_id    TEXT NOT NULL REFERENCES users (id),
     purpose    TEXT NOT NULL CHECK (purpose IN ('action', 'unsubscribe')),
     action_id  TEXT,
     verb       TEXT CHECK (verb IN ('approve', 'done', 'dismiss')),
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at    INTEGER
   ) STRICT`,
  "CREATE INDEX IF NOT EXISTS mail_links_age ON mail_links (expires_at)",
  `CREATE TABLE IF NOT EXISTS org_channels (
     org_id     TEXT NOT NULL,
     kind       TEXT NOT NULL CHECK (kind IN ('slack', 'teams')),
     config     TEXT NOT NULL,
     state      TEXT NOT NULL DEFAULT '{}',
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (org_id, kind)
   ) STRICT`,
  // The Slack agent runs by itself now (hourly, like inbox): organizations that never set its schedule get the default.
  "UPDATE agents SET schedule = '20 * * * *' WHERE id = 'slack' AND schedule IS NULL",
];

/**
 * Issue 18: a code remembers whether its authorization request named redirect_uri (then the token
 * request must repeat it, RFC 6749 §4.1.3); grants are found by client (which redirect URIs a
 * person ever approved); webhooks and sources keep their last success and last failure with its reason.
 */
export const REDIRECT_URI_AND_LAST_OUTCOMES: string[] = [
  "ALTER TABLE oauth_codes ADD COLUMN redirect_uri_sent INTEGER NOT NULL DEFAULT 1",
  "CREATE INDEX IF NOT EXISTS oauth_grants_client ON oauth_grants (client_id, redirect_uri)",
  "ALTER TABLE webhooks ADD COLUMN last_success_at INTEGER",
  "ALTER TABLE webhooks ADD COLUMN last_failure_at INTEGER",
  "ALTER TABLE webhooks ADD COLUMN last_failure_reason TEXT",
  "ALTER TABLE sources ADD COLUMN last_success_at INTEGER",
  "ALTER TABLE sources ADD COLUMN last_failure_at INTEGER",
  "ALTER TABLE sources ADD COLUMN last_failure_reason TEXT",
];

/**
 * Issue 20 (trustworthy intelligence): evidence on what runs write (JSON arrays of
 * {kind, ref, title, url?, excerpt?}), the suggestion lifecycle (accepted with its action,
 * dismissed with a reason, other agents that raised the same thing), snoozed actions, the run
 * an item came from, and the fingerprint of a model-backed run's inputs (unchanged → skipped).
 */
export const EVIDENCE_AND_FEEDBACK: string[] = [
  "ALTER TABLE suggestions ADD COLUMN evidence TEXT",
  "ALTER TABLE suggestions ADD COLUMN also_raised_by TEXT NOT NULL DEFAULT '[]'",
  "ALTER TABLE suggestions ADD COLUMN action_id TEXT",
  "ALTER TABLE suggestions ADD COLUMN reason TEXT",
  "ALTER TABLE suggestions ADD COLUMN updated_at INTEGER",
  "CREATE INDEX IF NOT EXISTS suggestions_by_status ON suggestions (org_id, status, updated_at)",
  "ALTER TABLE actions ADD COLUMN evidence TEXT",
  "ALTER TABLE actions ADD COLUMN run_id TEXT",
  "ALTER TABLE actions ADD COLUMN snoozed_until INTEGER",
  "ALTER TABLE insights ADD COLUMN evidence TEXT",
  "ALTER TABLE handoffs ADD COLUMN evidence TEXT",
  "ALTER TABLE agent_runs ADD COLUMN input_hash TEXT",
];

/**
 * Issue 21: `crew eval` results (src/docs/notes/eval.md), one row per agent per evaluation: the
 * model it measured, the sets, whether it passed and its scorecard row (JSON).
 */
export const EVAL_RUNS: string[] = [
  `CREATE TABLE IF NOT EXISTS eval_runs (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  batch_id    TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  sets        TEXT NOT NULL,
  provider    TEXT NOT NULL,
  model       TEXT NOT NULL,
  passed      INTEGER NOT NULL,
  scores      TEXT NOT NULL,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER NOT NULL
) STRICT`,
  "CREATE INDEX IF NOT EXISTS eval_runs_latest ON eval_runs (org_id, agent_id, finished_at, id)",
  "CREATE INDEX IF NOT EXISTS eval_runs_batches ON eval_runs (org_id, finished_at, batch_id)",
];

/**
 * Issue 31 (what the crew reads cannot steer it, src/docs/notes/prompt-injection.md): every record a
 * run writes says whether it rests on outside input (`provenance`), held records wait for an
 * owner (actions by `status = 'held'`, the others by `held`) with the reason, and a run's notes on
 * a contact go to the contact's history instead of over the notes people wrote.
 */
export const PROVENANCE_AND_HELD: string[] = [
  "ALTER TABLE suggestions ADD COLUMN provenance TEXT NOT NULL DEFAULT 'internal'",
  "ALTER TABLE suggestions ADD COLUMN held INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE suggestions ADD COLUMN held_reason TEXT",
  "ALTER TABLE actions ADD COLUMN provenance TEXT NOT NULL DEFAULT 'internal'",
  "ALTER TABLE actions ADD COLUMN held_reason TEXT",
  "ALTER TABLE insights ADD COLUMN provenance TEXT NOT NULL DEFAULT 'internal'",
  "ALTER TABLE insights ADD COLUMN held INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE insights ADD COLUMN held_reason TEXT",
  "ALTER TABLE handoffs ADD COLUMN provenance TEXT NOT NULL DEFAULT 'internal'",
  "ALTER TABLE handoffs ADD COLUMN held INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE handoffs ADD COLUMN held_reason TEXT",
  `CREATE TABLE IF NOT EXISTS contact_notes (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  contact_id  TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  run_id      TEXT,
  note        TEXT NOT NULL,
  evidence    TEXT,
  created_at  INTEGER NOT NULL
) STRICT`,
  "CREATE INDEX IF NOT EXISTS contact_notes_by_contact ON contact_notes (org_id, contact_id, created_at)",
];

/**
 * Issue 34 (src/docs/notes/connections.md): a connection's read position and backoff beside its
 * sealed tokens (`integrations.state`), what started a run (`agent_runs.run_trigger`), whether new mail
 * starts the agent, and the agent's sealed event-trigger secret and who made it.
 */
export const CONNECTIONS_AND_TRIGGERS: string[] = [
  "ALTER TABLE integrations ADD COLUMN state TEXT NOT NULL DEFAULT '{}'",
  "ALTER TABLE agent_runs ADD COLUMN run_trigger TEXT",
  "ALTER TABLE agents ADD COLUMN run_on_new_mail INTEGER NOT NULL DEFAULT 1",
  "ALTER TABLE agents ADD COLUMN trigger_secret TEXT",
  "ALTER TABLE agents ADD COLUMN trigger_secret_by TEXT",
];

/**
 * Issue 33, hardening: whether an SSO identity created its account from an unverified email (such an
 * account is never linked to another identity, src/docs/notes/single-sign-on.md); token reservations
 * of model-backed runs in flight, so parallel runs cannot spend a budget twice, and the one row per
 * organization that reservations lock on (src/docs/notes/model.md).
 */
export const SSO_AND_TOKEN_RESERVATIONS: string[] = [
  "ALTER TABLE user_identities ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 1",
  `CREATE TABLE IF NOT EXISTS token_reservations (
  id         TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  agent_id   TEXT NOT NULL,
  tokens     INTEGER NOT NULL,
  at         INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT`,
  "CREATE INDEX IF NOT EXISTS token_reservations_org ON token_reservations (org_id, expires_at)",
  "CREATE INDEX IF NOT EXISTS token_reservations_expiry ON token_reservations (expires_at)",
  `CREATE TABLE IF NOT EXISTS budget_locks (
  org_id TEXT PRIMARY KEY,
  at     INTEGER NOT NULL
) STRICT`,
];

/**
 * Issue 35: MCP tasks in the database (src/mcp/tasks.ts), so that every process sharing it answers
 * `tasks/get` and `tasks/cancel`, and a cancel reaches the process running the task.
 */
export const MCP_TASKS: string[] = [
  `CREATE TABLE IF NOT EXISTS mcp_tasks (
  id               TEXT PRIMARY KEY,
  org_id           TEXT NOT NULL,
  owner            TEXT NOT NULL,          -- the credential that created it: api_key:<hash> or oauth:<grant id>
  status           TEXT NOT NULL CHECK (status IN ('working', 'completed', 'failed', 'cancelled')),
  result           TEXT,                   -- JSON: the tool result, once completed
  error            TEXT,                   -- JSON {code, message}, once failed
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL
) STRICT`,
  "CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at)",
];

/** Steps from version 1 onwards, in order. */
export const migrations: Migration[] = [
  { version: 2, name: "roles and sign-in links", statements: ROLES_AND_SIGN_IN_LINKS },
  { version: 3, name: "list indexes and the agents version", statements: LIST_INDEXES_AND_AGENTS_VERSION },
  { version: 4, name: "sources", statements: SOURCES },
  { version: 5, name: "model connection", statements: MODEL_CONNECTION },
  { version: 6, name: "audit log and password resets", statements: AUDIT_LOG_AND_RESETS },
  { version: 7, name: "fold user administration", statements: FOLD_USER_ADMIN },
  { version: 8, name: "list order indexes", statements: LIST_ORDER_INDEXES },
  { version: 10, name: "redirect_uri and last outcomes", statements: REDIRECT_URI_AND_LAST_OUTCOMES },
  { version: 11, name: "evidence and feedback", statements: EVIDENCE_AND_FEEDBACK },
  { version: 12, name: "message outbox and channels", statements: MESSAGE_OUTBOX_AND_CHANNELS },
  { version: 13, name: "agent pause, budgets and identities", statements: AGENT_PAUSE_BUDGETS_AND_IDENTITIES },
  { version: 15, name: "eval runs", statements: EVAL_RUNS },
  { version: 16, name: "provenance and held for review", statements: PROVENANCE_AND_HELD },
  { version: 17, name: "sso identities and token reservations", statements: SSO_AND_TOKEN_RESERVATIONS },
  { version: 18, name: "connections and triggers", statements: CONNECTIONS_AND_TRIGGERS },
  { version: 19, name: "mcp tasks", statements: MCP_TASKS },
  // PostgreSQL only: the agents_version trigger bumps a slot per connection instead of one row that
  // every run's transaction would hold until it commits (engine/postgres-schema.ts). SQLite's single
  // writer has nothing to gain.
  { version: 20, name: "agents version slots", statements: [], postgres: [BUMP_FUNCTION] },
];

export const SCHEMA_VERSION = 20;

/** Splits schema.sql into statements (`;` at a line end ends one; a trigger is written on one line). */
export function splitSql(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) =>
      s
        .split("\n")
        .filter((line) => !line.trim().startsWith("--"))
        .join("\n")
        .trim(),
    )
    .filter(Boolean);
}

/**
 * The database was written by a newer release: this one does not know its tables, so it stops
 * rather than run on them (src/docs/notes/operating.md#upgrades). The message is the one line a start-up prints.
 */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database is at schema version ${found}, newer than this release's ${known}: run the newer Crew release (or restore a backup made by this one)`,
    );
  }
}

/** The names of the database's tables, sorted (Crew's own; not the engine's catalogue). */
export async function tableNames(db: Db): Promise<string[]> {
  const rows =
    db.engine === "postgres"
      ? await db.all<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
      : await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  return rows.map((r) => r.name);
}

/** A table's column names, in the table's order. */
export async function columnNames(db: Db, table: string): Promise<string[]> {
  const rows =
    db.engine === "postgres"
      ? await db.all<{ name: string }>(
          "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
          [table],
        )
      : await db.all<{ name: string }>("SELECT name FROM pragma_table_info(?)", [table]);
  return rows.map((r) => r.name);
}

export async function currentVersion(db: Db): Promise<number> {
  if (!(await tableNames(db)).includes("schema_meta")) return 0;
  const row = await db.one<{ value: string }>("SELECT value FROM schema_meta WHERE key = 'version'");
  return row ? Number(row.value) : 0;
}

/** A step's statements on this database's engine. */
const statementsOf = (db: Db, step: Migration): string[] =>
  db.engine === "postgres"
    ? (step.postgres ?? step.statements.map(postgresStatement).filter((s): s is string => s !== null))
    : step.statements;

/**
 * Applies the schema or the pending migrations; returns the version the database is now at.
 * Each step is one batch (a transaction) that first records `migration:N` in schema_meta: when
 * two processes upgrade one database at once, the second's record collides, its batch rolls
 * back whole, and the step runs exactly once. (Batches, not interactive transactions: the local
 * driver runs statements synchronously, so an open transaction in one process stalls every other
 * connection of that process until the busy timeout.)
 */
export async function migrate(db: Db, schemaSql: string, steps: Migration[] = migrations): Promise<number> {
  const found = await currentVersion(db);
  const known = Math.max(SCHEMA_VERSION, ...steps.map((s) => s.version));
  if (found > known) throw new SchemaTooNewError(found, known);
  if (found === 0) {
    const statements = splitSql(schemaSql);
    await db.batch(db.engine === "postgres" ? postgresSchema(statements) : statements, "write");
  }
  for (const step of steps) {
    if (step.version <= (await currentVersion(db))) continue;
    try {
      await db.batch(
        [
          { sql: "INSERT INTO schema_meta (key, value) VALUES (?, ?)", args: [`migration:${step.version}`, new Date().toISOString()] },
          ...statementsOf(db, step),
          { sql: "UPDATE schema_meta SET value = ? WHERE key = 'version'", args: [String(step.version)] },
        ],
        "write",
      );
    } catch (error) {
      if (!isUniqueViolation(error, "schema_meta", "key")) throw error;
    }
  }
  return currentVersion(db);
}
