-- Crew schema, version 20 (src/store/migrations.ts holds the upgrade steps from older versions).
-- Conventions: STRICT tables; every *_at column is Unix time in milliseconds (INTEGER);
-- identifiers are a type prefix plus a ULID; secrets are stored only as lowercase hex SHA-256;
-- every row belongs to one organization. Every statement is idempotent (IF NOT EXISTS), so two
-- processes starting on one fresh database cannot trip over each other.

CREATE TABLE IF NOT EXISTS schema_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS organizations (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  time_zone  TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS organizations_one_default ON organizations (is_default) WHERE is_default = 1;

CREATE TABLE IF NOT EXISTS users (
  id            TEXT PRIMARY KEY,
  org_id        TEXT NOT NULL REFERENCES organizations (id),
  email         TEXT NOT NULL UNIQUE,          -- normalized: trimmed, lower-case
  name          TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  plan          TEXT NOT NULL DEFAULT 'lite',
  time_zone     TEXT,                          -- null: the organization's
  created_at    INTEGER NOT NULL,
  -- issue 13: owners manage the organization, members read and act (SPEC §12); a deactivated user
  -- keeps their rows but has no way in (password unusable, sessions, keys and grants revoked)
  role          TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  deactivated_at INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS users_org ON users (org_id);

-- issue 13: one-time links (only the SHA-256 is stored) where a user chooses a password and is signed in:
-- 'welcome' when an owner creates them (/welcome), 'reset' from `crew user reset-password` (/reset-password).
-- Step 7 folded issue 14's password_resets into this table.
CREATE TABLE IF NOT EXISTS sign_in_links (
  token_hash TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users (id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER,
  purpose    TEXT NOT NULL DEFAULT 'welcome' CHECK (purpose IN ('welcome', 'reset'))
) STRICT;

CREATE TABLE IF NOT EXISTS api_keys (
  hash         TEXT PRIMARY KEY,               -- SHA-256 of the whole key string
  user_id      TEXT NOT NULL REFERENCES users (id),
  name         TEXT NOT NULL,
  scopes       TEXT NOT NULL,                  -- JSON array of key scopes
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at   INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys (user_id, created_at);

-- Hourly request quota per user: fixed windows aligned to the hour.
CREATE TABLE IF NOT EXISTS quota_windows (
  user_id      TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  used         INTEGER NOT NULL,
  PRIMARY KEY (user_id, window_start)
) STRICT, WITHOUT ROWID;

-- Browser sessions (Lucia's scheme: only SHA-256 of the token is stored).
CREATE TABLE IF NOT EXISTS sessions (
  id         TEXT PRIMARY KEY,                 -- SHA-256 of the session token
  user_id    TEXT NOT NULL REFERENCES users (id),
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);

-- Failed sign-ins, for throttling (10 per email per 15 minutes).
CREATE TABLE IF NOT EXISTS sign_in_failures (
  email     TEXT NOT NULL,
  failed_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS sign_in_failures_email ON sign_in_failures (email, failed_at);

-- One-time first-run setup tokens.
CREATE TABLE IF NOT EXISTS setup_tokens (
  token_hash TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  used_at    INTEGER
) STRICT;

-- OAuth 2.1 authorization server.
CREATE TABLE IF NOT EXISTS oauth_clients (
  id                 TEXT PRIMARY KEY,         -- client_id
  secret_hash        TEXT,                     -- confidential clients only
  metadata           TEXT NOT NULL,            -- JSON: the registered metadata as echoed
  registered_from    TEXT,                     -- client address, for the registration limit
  created_at         INTEGER NOT NULL,
  first_used_at      INTEGER                   -- first grant; unused registrations are purged
) STRICT;
CREATE INDEX IF NOT EXISTS oauth_clients_unused ON oauth_clients (created_at) WHERE first_used_at IS NULL;
-- The per-address registration limit counts the last hour's registrations of one address.
CREATE INDEX IF NOT EXISTS oauth_clients_registered_from ON oauth_clients (registered_from, created_at);

CREATE TABLE IF NOT EXISTS oauth_grants (
  id           TEXT PRIMARY KEY,
  client_id    TEXT NOT NULL,
  user_id      TEXT NOT NULL REFERENCES users (id),
  scopes       TEXT NOT NULL,                  -- space-separated OAuth scopes
  resource     TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at   INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS oauth_grants_user ON oauth_grants (user_id);
CREATE INDEX IF NOT EXISTS oauth_grants_client ON oauth_grants (client_id, redirect_uri);

CREATE TABLE IF NOT EXISTS oauth_codes (
  code_hash      TEXT PRIMARY KEY,
  grant_id       TEXT NOT NULL,
  client_id      TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource       TEXT NOT NULL,
  scopes         TEXT NOT NULL,
  expires_at     INTEGER NOT NULL,
  used_at        INTEGER,
  redirect_uri_sent INTEGER NOT NULL DEFAULT 1   -- 0: the authorization request omitted it (one registered URI)
) STRICT;
CREATE INDEX IF NOT EXISTS oauth_codes_expiry ON oauth_codes (expires_at);

CREATE TABLE IF NOT EXISTS oauth_tokens (
  token_hash   TEXT PRIMARY KEY,
  grant_id     TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  scopes       TEXT NOT NULL,
  resource     TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  used_at      INTEGER,                        -- refresh: when its successor was issued
  revoked_at   INTEGER,
  parent_hash  TEXT                            -- refresh: the token this one replaced
) STRICT;
CREATE INDEX IF NOT EXISTS oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX IF NOT EXISTS oauth_tokens_expiry ON oauth_tokens (expires_at);

-- The 17 agents, per organization (schedules are editable per agent).
CREATE TABLE IF NOT EXISTS agents (
  org_id   TEXT NOT NULL REFERENCES organizations (id),
  id       TEXT NOT NULL,
  name     TEXT NOT NULL,
  category TEXT NOT NULL,
  schedule TEXT,                               -- cron expression in the organization's time zone
  position INTEGER NOT NULL,
  -- issue 25: consecutive scheduled runs ending in error; at 3 the agent is paused (not scheduled)
  failed_runs   INTEGER NOT NULL DEFAULT 0,
  paused_at     INTEGER,
  paused_reason TEXT,
  daily_tokens  INTEGER,                       -- the agent's own daily token cap; null: none
  -- issue 34: new mail starts the agent (inbox); its event-trigger secret, sealed, and who made it
  run_on_new_mail   INTEGER NOT NULL DEFAULT 1,
  trigger_secret    TEXT,
  trigger_secret_by TEXT,
  PRIMARY KEY (org_id, id)
) STRICT;

CREATE TABLE IF NOT EXISTS agent_runs (
  id          TEXT PRIMARY KEY,                -- run_…
  org_id      TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error')),
  summary     TEXT,
  error       TEXT,
  output      TEXT,                            -- JSON
  metrics     TEXT,                            -- JSON {dau, wau, mrr}, pulse runs
  has_data    INTEGER NOT NULL DEFAULT 0,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  input_hash  TEXT,                            -- model-backed runs: fingerprint of the inputs handed over
  run_trigger TEXT                             -- what started it besides a person or the schedule: mail, event
) STRICT;
-- The dashboard's "latest run" and "latest successful run" per agent, read without a sort.
CREATE INDEX IF NOT EXISTS agent_runs_agent ON agent_runs (org_id, agent_id, finished_at, id);
CREATE INDEX IF NOT EXISTS agent_runs_agent_status ON agent_runs (org_id, agent_id, status, finished_at, id);

CREATE TABLE IF NOT EXISTS integration_alerts (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  user_id     TEXT,
  service     TEXT NOT NULL,
  severity    TEXT NOT NULL CHECK (severity IN ('critical', 'warning')),
  message     TEXT NOT NULL,
  flagged_at  INTEGER NOT NULL,
  resolved_at INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS integration_alerts_open ON integration_alerts (org_id) WHERE resolved_at IS NULL;

CREATE TABLE IF NOT EXISTS standups (
  id           TEXT PRIMARY KEY,               -- std_…
  org_id       TEXT NOT NULL,
  mode         TEXT NOT NULL CHECK (mode IN ('morning', 'evening')),
  generated_at INTEGER NOT NULL,
  body         TEXT NOT NULL                   -- JSON {briefing, agentStatuses, metrics, interventions}
) STRICT;
CREATE INDEX IF NOT EXISTS standups_latest ON standups (org_id, mode, generated_at, id);

CREATE TABLE IF NOT EXISTS briefings (
  id           TEXT PRIMARY KEY,               -- brf_…
  org_id       TEXT NOT NULL,
  user_id      TEXT NOT NULL,
  generated_at INTEGER NOT NULL,
  body         TEXT NOT NULL                   -- JSON {briefing, recommendations, pendingActions}
) STRICT;
CREATE INDEX IF NOT EXISTS briefings_latest ON briefings (user_id, generated_at, id);

CREATE TABLE IF NOT EXISTS suggestions (
  id            TEXT PRIMARY KEY,              -- sug_…
  org_id        TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  run_id        TEXT,
  title         TEXT NOT NULL,
  detail        TEXT NOT NULL,
  priority      TEXT NOT NULL,
  priority_rank INTEGER NOT NULL,              -- 0 critical … 3 low
  status        TEXT NOT NULL DEFAULT 'open',  -- open | accepted | dismissed | superseded
  created_at    INTEGER NOT NULL,
  evidence      TEXT,                          -- JSON [{kind, ref, title, url?, excerpt?}]
  also_raised_by TEXT NOT NULL DEFAULT '[]',   -- JSON [agent id]: other agents that raised the same thing
  action_id     TEXT,                          -- accepted: the action it became
  reason        TEXT,                          -- dismissed: why (optional)
  updated_at    INTEGER,
  provenance    TEXT NOT NULL DEFAULT 'internal', -- internal | external: rests on outside input (SPEC §23)
  held          INTEGER NOT NULL DEFAULT 0,    -- 1: held for review until an owner releases it
  held_reason   TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS suggestions_order ON suggestions (org_id, priority_rank, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS suggestions_by_status ON suggestions (org_id, status, updated_at);

CREATE TABLE IF NOT EXISTS profiles (
  id           TEXT PRIMARY KEY,
  org_id       TEXT NOT NULL,
  run_id       TEXT,
  generated_at INTEGER NOT NULL,
  body         TEXT NOT NULL                   -- JSON {archetype, strengths, weaknesses, patterns, pipeline}
) STRICT;
CREATE INDEX IF NOT EXISTS profiles_latest ON profiles (org_id, generated_at, id);

CREATE TABLE IF NOT EXISTS actions (
  id            TEXT PRIMARY KEY,              -- act_…
  org_id        TEXT NOT NULL,
  title         TEXT NOT NULL,
  description   TEXT,
  priority      TEXT NOT NULL,
  priority_rank INTEGER NOT NULL,              -- 0 critical … 3 low; the queue's sort key
  category      TEXT,
  status        TEXT NOT NULL,
  source        TEXT NOT NULL,
  type          TEXT NOT NULL,
  lane          TEXT NOT NULL,
  contact_id    TEXT,
  deal_id       TEXT,
  created_by    TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  evidence      TEXT,                          -- JSON, as on suggestions
  run_id        TEXT,                          -- the run that wrote it
  snoozed_until INTEGER,                       -- hidden from the open queue until then
  provenance    TEXT NOT NULL DEFAULT 'internal', -- internal | external (as on suggestions); held: status 'held'
  held_reason   TEXT
) STRICT;
-- Column directions match the queue's ORDER BY priority_rank, id DESC: pages read in index order, no sort.
CREATE INDEX IF NOT EXISTS actions_queue ON actions (org_id, priority_rank, id DESC);

CREATE TABLE IF NOT EXISTS contacts (
  id           TEXT PRIMARY KEY,               -- con_…
  org_id       TEXT NOT NULL,
  name         TEXT NOT NULL,
  name_key     TEXT NOT NULL,                  -- trimmed, lower-case name
  email        TEXT,                           -- trimmed, lower-case
  company      TEXT,
  role         TEXT,
  relationship TEXT NOT NULL,
  notes        TEXT,
  created_by   TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
) STRICT;
-- Upsert targets: by email, and by name among contacts without an email.
CREATE UNIQUE INDEX IF NOT EXISTS contacts_email ON contacts (org_id, email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS contacts_name ON contacts (org_id, name_key) WHERE email IS NULL;

CREATE TABLE IF NOT EXISTS handoffs (
  id            TEXT PRIMARY KEY,              -- hof_…
  org_id        TEXT NOT NULL,
  from_agent    TEXT NOT NULL,
  to_agent      TEXT NOT NULL,
  title         TEXT NOT NULL,
  context       TEXT,
  priority      TEXT NOT NULL,
  priority_rank INTEGER NOT NULL,
  type          TEXT,
  status        TEXT NOT NULL CHECK (status IN ('queued', 'claimed', 'done', 'failed')),
  run_id        TEXT,                          -- the run that claimed it
  created_by    TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  evidence      TEXT,                          -- JSON, as on suggestions
  provenance    TEXT NOT NULL DEFAULT 'internal',
  held          INTEGER NOT NULL DEFAULT 0,
  held_reason   TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS handoffs_queue ON handoffs (org_id, to_agent, status, priority_rank, created_at, id);

CREATE TABLE IF NOT EXISTS insights (
  id         TEXT PRIMARY KEY,                 -- ins_…
  org_id     TEXT NOT NULL,
  agent      TEXT NOT NULL,
  title      TEXT NOT NULL,
  detail     TEXT,
  type       TEXT NOT NULL,
  impact     TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  evidence   TEXT,                             -- JSON, as on suggestions
  provenance TEXT NOT NULL DEFAULT 'internal',
  held       INTEGER NOT NULL DEFAULT 0,
  held_reason TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS insights_feed ON insights (org_id, created_at, id);

-- What runs noted about a contact (SPEC §23: a run's notes never replace the notes people wrote).
CREATE TABLE IF NOT EXISTS contact_notes (
  id          TEXT PRIMARY KEY,                -- cnn_…
  org_id      TEXT NOT NULL,
  contact_id  TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  run_id      TEXT,
  note        TEXT NOT NULL,
  evidence    TEXT,                            -- JSON, as on suggestions
  created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS contact_notes_by_contact ON contact_notes (org_id, contact_id, created_at);

-- MCP tasks (io.modelcontextprotocol/tasks) of crew_run_agent, so that any process answers
-- tasks/get and tasks/cancel for the credential that created one (src/mcp/tasks.ts); kept an hour.
CREATE TABLE IF NOT EXISTS mcp_tasks (
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
) STRICT;
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at);

-- Scheduler leadership across processes sharing the database.
CREATE TABLE IF NOT EXISTS leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

-- Webhooks: subscriptions and the durable delivery outbox (SPEC §9). The signing secret is kept
-- in clear: every process must sign with it, so encrypting it with CREW_SECRET (which lives beside
-- the database by default) would add little. It is never returned after creation (README "Webhooks").
CREATE TABLE IF NOT EXISTS webhooks (
  id          TEXT PRIMARY KEY,                -- whk_…
  org_id      TEXT NOT NULL,
  url         TEXT NOT NULL,
  events      TEXT NOT NULL,                   -- JSON array of event names
  description TEXT,
  secret      TEXT NOT NULL,                   -- whsec_…, needed in clear to sign
  created_by  TEXT NOT NULL,                   -- a user id, or "cli"
  created_at  INTEGER NOT NULL,
  last_success_at     INTEGER,                 -- the last delivery attempt answered 2xx
  last_failure_at     INTEGER,                 -- the last attempt that did not, and why
  last_failure_reason TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS webhooks_org ON webhooks (org_id, id);

-- One row per (subscription, event), written in the same batch as the write that raised the event:
-- the deliverer claims due rows atomically (status 'delivering' until locked_until), so several
-- processes never send one attempt twice, and a crashed process's claims are taken again later.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  webhook_id      TEXT NOT NULL,
  event_id        TEXT NOT NULL,               -- evt_…: the webhook-id header, the same on every retry
  event           TEXT NOT NULL,
  payload         TEXT NOT NULL,               -- the exact JSON body sent (and signed)
  status          TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,  -- attempts started (counted when claimed)
  next_attempt_at INTEGER,                     -- null once delivered or failed
  locked_until    INTEGER,
  last_attempt_at INTEGER,
  last_status     INTEGER,                     -- HTTP status of the last attempt, null when none came back
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  PRIMARY KEY (webhook_id, event_id)
) STRICT;
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);

-- Connected integrations (CalDAV calendar), credentials encrypted with CREW_SECRET.
CREATE TABLE IF NOT EXISTS integrations (
  user_id     TEXT NOT NULL,
  kind        TEXT NOT NULL,
  config      TEXT NOT NULL,                   -- JSON, secrets encrypted (AES-GCM)
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  state       TEXT NOT NULL DEFAULT '{}',      -- JSON: a connection's read position and backoff (issue 34)
  PRIMARY KEY (user_id, kind)
) STRICT;

-- Rows that `crew seed --demo` inserted (table, id), so running it again replaces exactly those.
CREATE TABLE IF NOT EXISTS demo_rows (
  table_name TEXT NOT NULL,
  row_id     TEXT NOT NULL,
  PRIMARY KEY (table_name, row_id)
) STRICT, WITHOUT ROWID;

INSERT OR IGNORE INTO schema_meta (key, value) VALUES ('version', '20');

-- Agents runtime (SPEC §8). The latest schedule slot the scheduler claimed per agent: claiming is
-- one atomic upsert that only moves forward, so each slot runs once however many processes tick,
-- and a stretch of missed slots after downtime runs once (only the latest slot is ever claimed).
CREATE TABLE IF NOT EXISTS schedule_slots (
  org_id     TEXT NOT NULL,
  agent_id   TEXT NOT NULL,
  slot_at    INTEGER NOT NULL,
  claimed_at INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id)
) STRICT, WITHOUT ROWID;

-- Which agent run raised an integration alert (alerts reported through the agent-run API):
-- a later successful run of that agent resolves them (README "Agents runtime").
CREATE TABLE IF NOT EXISTS alert_sources (
  alert_id TEXT PRIMARY KEY,
  org_id   TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  run_id   TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS alert_sources_agent ON alert_sources (org_id, agent_id);
-- Run history per agent, newest first; open runs for the one-hour sweep.
CREATE INDEX IF NOT EXISTS agent_runs_history ON agent_runs (org_id, agent_id, started_at, id);
CREATE INDEX IF NOT EXISTS agent_runs_open ON agent_runs (started_at) WHERE status = 'running';
-- The handoffs a run claimed.
CREATE INDEX IF NOT EXISTS handoffs_run ON handoffs (run_id) WHERE run_id IS NOT NULL;

-- issue 10: every list read from an index in the order it returns (test/store/query-plans.test.ts),
-- and the indexes the retention pass (src/store/retention.ts) deletes by.
CREATE INDEX IF NOT EXISTS users_org_created ON users (org_id, created_at);
CREATE INDEX IF NOT EXISTS agents_position ON agents (org_id, position);
CREATE INDEX IF NOT EXISTS standups_any_mode ON standups (org_id, generated_at, id);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
CREATE INDEX IF NOT EXISTS sign_in_failures_age ON sign_in_failures (failed_at);
CREATE INDEX IF NOT EXISTS quota_windows_age ON quota_windows (window_start);
CREATE INDEX IF NOT EXISTS webhook_deliveries_age ON webhook_deliveries (status, created_at);
CREATE INDEX IF NOT EXISTS contacts_org ON contacts (org_id, relationship);
CREATE INDEX IF NOT EXISTS agent_runs_age ON agent_runs (started_at);
CREATE INDEX IF NOT EXISTS briefings_age ON briefings (generated_at);
CREATE INDEX IF NOT EXISTS standups_age ON standups (generated_at);
-- The dashboard's agents list is cached per process until agents or their runs change: every such
-- write, by any process, bumps agents_version in the same transaction (store/agents.ts).
INSERT OR IGNORE INTO schema_meta (key, value) VALUES ('agents_version', '0');
CREATE TRIGGER IF NOT EXISTS agent_runs_version_insert AFTER INSERT ON agent_runs BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END;
CREATE TRIGGER IF NOT EXISTS agent_runs_version_update AFTER UPDATE ON agent_runs BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END;
CREATE TRIGGER IF NOT EXISTS agent_runs_version_delete AFTER DELETE ON agent_runs BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END;
CREATE TRIGGER IF NOT EXISTS agents_version_insert AFTER INSERT ON agents BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END;
CREATE TRIGGER IF NOT EXISTS agents_version_update AFTER UPDATE ON agents BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END;
CREATE TRIGGER IF NOT EXISTS agents_version_delete AFTER DELETE ON agents BEGIN UPDATE schema_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'agents_version'; END;
-- issue 12: sources of the model-backed agents (SPEC §13): one IMAP mailbox per organization (for
-- `inbox`) and feeds (each read by the agents it names). `config` holds the password only sealed
-- (AES-GCM, src/integrations/secret-box.ts); `state` is what the last successful run saw (IMAP
-- UIDVALIDITY and last UID, feed item ids), so each run reads only what is new.
CREATE TABLE IF NOT EXISTS sources (
  id          TEXT PRIMARY KEY,                -- src_…
  org_id      TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('imap', 'feed')),
  config      TEXT NOT NULL,                   -- JSON; imap {host, port, tls, username, password (sealed), folder}; feed {url}
  agents      TEXT NOT NULL,                   -- JSON array of agent ids that read it
  state       TEXT NOT NULL DEFAULT '{}',      -- JSON, see above
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  last_success_at     INTEGER,                 -- the last read that worked
  last_failure_at     INTEGER,                 -- the last read that did not, and why (shown to owners)
  last_failure_reason TEXT
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS sources_one_mailbox ON sources (org_id) WHERE kind = 'imap';
CREATE INDEX IF NOT EXISTS sources_org ON sources (org_id, kind);

-- issue 12: the model connection (SPEC §13). One row per organization, set by owners in
-- /settings/model (the environment wins over it); the API key is stored only sealed (AES-GCM,
-- src/integrations/secret-box.ts). Per-agent instruction overrides; tokens each model call spent,
-- per run (the run history shows them, the daily budget sums them).
CREATE TABLE IF NOT EXISTS model_settings (
  org_id       TEXT PRIMARY KEY,
  provider     TEXT NOT NULL CHECK (provider IN ('openai-compatible', 'openai', 'anthropic')),
  base_url     TEXT,
  model        TEXT NOT NULL,
  api_key      TEXT,                           -- sealed
  daily_tokens INTEGER,
  updated_at   INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS agent_instructions (
  org_id       TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  instructions TEXT NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS run_usage (
  run_id     TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  agent_id   TEXT NOT NULL,
  tokens_in  INTEGER NOT NULL,
  tokens_out INTEGER NOT NULL,
  at         INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS run_usage_day ON run_usage (org_id, at);


-- issue 14: operating Crew (SPEC §14). Kept in step with ISSUE14_SCHEMA in src/store/migrations.ts.
-- The audit log: who did what to which organization, when. Never secrets: subjects are ids,
-- emails, key hashes, URLs without query strings.
CREATE TABLE IF NOT EXISTS audit_events (
  id         TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  at         INTEGER NOT NULL,
  event      TEXT NOT NULL,
  actor_kind TEXT NOT NULL,                    -- user, cli, system
  actor_id   TEXT,                             -- the user's id when actor_kind = 'user'
  subject    TEXT,
  detail     TEXT NOT NULL DEFAULT '{}'        -- JSON object
) STRICT;
CREATE INDEX IF NOT EXISTS audit_events_org ON audit_events (org_id, at, id);
-- Organizations are named on the command line (`--org NAME`): names are unique.
CREATE UNIQUE INDEX IF NOT EXISTS organizations_name ON organizations (name);
-- Password reset links are sign_in_links with purpose 'reset'; deactivation is users.deactivated_at (step 7).

-- Lists in the order they read them (migration step 8): contacts by name (web, GET
-- /api/mcp/contacts) and most recently updated (model inputs), the feed newest first, handoffs
-- by priority, the audit log newest first.
CREATE INDEX IF NOT EXISTS contacts_by_name ON contacts (org_id, name_key, id);
CREATE INDEX IF NOT EXISTS contacts_recent ON contacts (org_id, updated_at, id);
CREATE INDEX IF NOT EXISTS insights_newest ON insights (org_id, id);
CREATE INDEX IF NOT EXISTS handoffs_by_rank ON handoffs (org_id, priority_rank, id DESC);
CREATE INDEX IF NOT EXISTS audit_events_newest ON audit_events (org_id, id);

-- issue 25: the 80 % budget warning, claimed once per budget per day.
CREATE TABLE IF NOT EXISTS budget_warnings (
  org_id   TEXT NOT NULL,
  agent_id TEXT NOT NULL,                      -- '' for the organization's budget
  day      TEXT NOT NULL,                      -- YYYY-MM-DD (UTC), the budget's day
  at       INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id, day)
) STRICT;

-- issue 25: OIDC sign-in links (issuer, subject) to a user.
CREATE TABLE IF NOT EXISTS user_identities (
  issuer     TEXT NOT NULL,
  subject    TEXT NOT NULL,
  user_id    TEXT NOT NULL REFERENCES users (id),
  created_at INTEGER NOT NULL,
  email_verified INTEGER NOT NULL DEFAULT 1,   -- 0: this identity created the account from an unverified email
  PRIMARY KEY (issuer, subject)
) STRICT;
CREATE INDEX IF NOT EXISTS user_identities_user ON user_identities (user_id);
-- issue 33: tokens reserved by model-backed runs in flight (settled when the run ends, or expired), and
-- the row per organization a reservation locks so that two reservations are never checked at once.
CREATE TABLE IF NOT EXISTS token_reservations (
  id         TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  agent_id   TEXT NOT NULL,
  tokens     INTEGER NOT NULL,
  at         INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS token_reservations_org ON token_reservations (org_id, expires_at);
CREATE INDEX IF NOT EXISTS token_reservations_expiry ON token_reservations (expires_at);
CREATE TABLE IF NOT EXISTS budget_locks (
  org_id TEXT PRIMARY KEY,
  at     INTEGER NOT NULL
) STRICT;
-- issue 22: the outbox of mail, Slack and Teams messages (src/docs/notes/delivery.md), claimed and retried like
-- webhook_deliveries; dedupe_key makes "one briefing mail per user per day" a constraint.
CREATE TABLE IF NOT EXISTS messages (
  id              TEXT PRIMARY KEY,              -- msg_…
  org_id          TEXT NOT NULL,
  user_id         TEXT,                          -- the person it is for; null for an organization's channel
  channel         TEXT NOT NULL CHECK (channel IN ('email', 'slack', 'teams')),
  kind            TEXT NOT NULL,                 -- briefing, standup, test
  dedupe_key      TEXT UNIQUE,
  payload         TEXT NOT NULL,                 -- JSON: what the sender composes the message from
  status          TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  locked_until    INTEGER,
  last_attempt_at INTEGER,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS messages_due ON messages (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS messages_log ON messages (org_id, id);
-- Per-user notification preferences (no row: the defaults, mail on, Slack DM off).
CREATE TABLE IF NOT EXISTS notification_prefs (
  user_id        TEXT PRIMARY KEY REFERENCES users (id),
  briefing_email INTEGER NOT NULL DEFAULT 1,
  briefing_slack INTEGER NOT NULL DEFAULT 0,
  updated_at     INTEGER NOT NULL
) STRICT;
-- Links in mails (only the SHA-256 is stored): one-click actions (one action, one verb, single use)
-- and the RFC 8058 one-click unsubscribe.
CREATE TABLE IF NOT EXISTS mail_links (
  token_hash TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users (id),
  purpose    TEXT NOT NULL CHECK (purpose IN ('action', 'unsubscribe')),
  action_id  TEXT,
  verb       TEXT CHECK (verb IN ('approve', 'done', 'dismiss')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS mail_links_age ON mail_links (expires_at);
-- The organization's Slack and Teams connections (config JSON, secrets sealed) and what the
-- Slack agent has read so far (state JSON: the newest ts per channel).
CREATE TABLE IF NOT EXISTS org_channels (
  org_id     TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('slack', 'teams')),
  config     TEXT NOT NULL,
  state      TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (org_id, kind)
) STRICT;

-- issue 21 (migration step 15): `crew eval` results, one row per agent per evaluation
-- (src/docs/notes/eval.md). scores is the agent's scorecard row as JSON.
CREATE TABLE IF NOT EXISTS eval_runs (
  id          TEXT PRIMARY KEY,
  org_id      TEXT NOT NULL,
  batch_id    TEXT NOT NULL,                  -- one `crew eval` (or "Run evaluation")
  agent_id    TEXT NOT NULL,
  sets        TEXT NOT NULL,                  -- the set names, comma-separated
  provider    TEXT NOT NULL,
  model       TEXT NOT NULL,
  passed      INTEGER NOT NULL,               -- 1: evidence 100 %, no injection obeyed
  scores      TEXT NOT NULL,                  -- JSON
  started_at  INTEGER NOT NULL,
  finished_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS eval_runs_latest ON eval_runs (org_id, agent_id, finished_at, id);
CREATE INDEX IF NOT EXISTS eval_runs_batches ON eval_runs (org_id, finished_at, batch_id);
