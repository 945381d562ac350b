/**
 * Retention (src/docs/notes/storage-and-speed.md#what-crew-keeps-and-for-how-long): what may be deleted once it has expired, so that stored data grows with
 * what users and agents write, not with requests. Each rule deletes in bounded batches (a short
 * write transaction each, so other writers and this process's requests interleave between them).
 * This list is the one retention policy: nothing else deletes expired rows. The holder of the
 * `retention` lease runs the pass (src/background/retention.ts); running it twice, or from two
 * processes, is harmless. What is kept how long: src/docs/notes/storage-and-speed.md.
 */
import { DAY, HOUR } from "../lib/clock.ts";
import type { Db } from "./db.ts";

export const RETENTION_BATCH = 500;
/** Webhook deliveries and agent runs are kept this long (src/docs/notes/storage-and-speed.md#what-crew-keeps-and-for-how-long). */
export const HISTORY_DAYS = 90;
/** Standups and briefings are kept whole this long, then one per day. */
export const REPORT_DAYS = 30;
/** Finished messages (mail, Slack, Teams) stay in the delivery log this long. */
export const MESSAGE_DAYS = 30;
/** Audit rows are kept this long unless AUDIT_RETENTION_DAYS says otherwise. */
export const AUDIT_RETENTION_DAYS = 365;

export interface RetentionOptions {
  /** The sign-in throttling window: failures older than this count for nothing (src/docs/notes/web-and-accounts.md). */
  signInWindowMs: number;
  /** How long audit rows are kept (AUDIT_RETENTION_DAYS; default one year). */
  auditRetentionMs?: number;
  batch?: number;
  /** Called between batches, so a long pass yields to requests (a macrotask in the server). */
  pause?: () => Promise<void>;
  /** Aborted at shutdown: each rule stops after its current batch (at most one batch per rule). */
  signal?: AbortSignal;
}

/** A rule: a statement deleting at most `?2` expired rows, given `?1` = its cutoff. */
interface Rule {
  name: string;
  cutoff: (now: number, options: RetentionOptions) => number;
  sql: string;
}

/** The start of the UTC day of a timestamp column, for "one per day" (integer division). */
const dayOf = (column: string) => `(${column} / ${DAY})`;

export const RETENTION_RULES: Rule[] = [
  {
    name: "quota_windows",
    // Windows are aligned to the hour: every window before the current hour is over.
    cutoff: (now) => now - (now % HOUR),
    sql: `DELETE FROM quota_windows WHERE (user_id, window_start) IN
            (SELECT user_id, window_start FROM quota_windows WHERE window_start < ?1 LIMIT ?2)`,
  },
  {
    name: "sessions",
    cutoff: (now) => now,
    sql: "DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions WHERE expires_at <= ?1 LIMIT ?2)",
  },
  {
    // A run's reservation is released when it ends; one left by a crashed process expires (src/agents/budgets.ts).
    name: "token_reservations",
    cutoff: (now) => now,
    sql: "DELETE FROM token_reservations WHERE rowid IN (SELECT rowid FROM token_reservations WHERE expires_at <= ?1 LIMIT ?2)",
  },
  {
    name: "oauth_codes",
    cutoff: (now) => now,
    sql: "DELETE FROM oauth_codes WHERE rowid IN (SELECT rowid FROM oauth_codes WHERE expires_at <= ?1 LIMIT ?2)",
  },
  {
    name: "oauth_tokens",
    cutoff: (now) => now,
    sql: "DELETE FROM oauth_tokens WHERE rowid IN (SELECT rowid FROM oauth_tokens WHERE expires_at <= ?1 LIMIT ?2)",
  },
  {
    // Used setup links are spent; unused ones can never be used once an account exists.
    name: "setup_tokens",
    cutoff: (now) => now,
    sql: `DELETE FROM setup_tokens WHERE rowid IN (SELECT rowid FROM setup_tokens
            WHERE (used_at IS NOT NULL OR EXISTS (SELECT 1 FROM users)) AND created_at <= ?1 LIMIT ?2)`,
  },
  {
    // Issue 11 item 7: failures for emails nobody signs in with were never removed.
    name: "sign_in_failures",
    cutoff: (now, o) => now - o.signInWindowMs,
    sql: "DELETE FROM sign_in_failures WHERE rowid IN (SELECT rowid FROM sign_in_failures WHERE failed_at <= ?1 LIMIT ?2)",
  },
  {
    // Audit rows past AUDIT_RETENTION_DAYS, read per organization from its (org_id, at) index
    // (CROSS JOIN keeps organizations outside, as SQLite documents for fixing the join order).
    name: "audit_events",
    cutoff: (now, o) => now - (o.auditRetentionMs ?? AUDIT_RETENTION_DAYS * DAY),
    sql: `DELETE FROM audit_events WHERE rowid IN (SELECT a.rowid FROM organizations
            CROSS JOIN audit_events a WHERE a.org_id = organizations.id AND a.at <= ?1 LIMIT ?2)`,
  },
  {
    // Finished deliveries only: a pending or delivering row is the outbox's promise to send.
    name: "webhook_deliveries",
    cutoff: (now) => now - HISTORY_DAYS * DAY,
    sql: `DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid FROM webhook_deliveries
            WHERE created_at < ?1 AND status IN ('delivered', 'failed') LIMIT ?2)`,
  },
  {
    // Finished messages only, like webhook deliveries: a pending row is a promise to send.
    name: "messages",
    cutoff: (now) => now - MESSAGE_DAYS * DAY,
    sql: `DELETE FROM messages WHERE rowid IN (SELECT rowid FROM messages
            WHERE status IN ('delivered', 'failed') AND updated_at < ?1 LIMIT ?2)`,
  },
  {
    // A day past expiry, so an expired link's page still says "expired" meanwhile.
    name: "mail_links",
    cutoff: (now) => now - DAY,
    sql: "DELETE FROM mail_links WHERE rowid IN (SELECT rowid FROM mail_links WHERE expires_at < ?1 LIMIT ?2)",
  },
  {
    // Each agent keeps its latest ok and latest error run however old (the dashboard shows them).
    name: "agent_runs",
    cutoff: (now) => now - HISTORY_DAYS * DAY,
    sql: `DELETE FROM agent_runs WHERE rowid IN (SELECT r.rowid FROM agent_runs r
            WHERE r.started_at < ?1 AND r.status != 'running'
              AND EXISTS (SELECT 1 FROM agent_runs n
                           WHERE n.org_id = r.org_id AND n.agent_id = r.agent_id AND n.status = r.status
                             AND (n.finished_at, n.id) > (r.finished_at, r.id))
            LIMIT ?2)`,
  },
  {
    // Past the window, one standup per organization, mode and day: the day's latest.
    name: "standups",
    cutoff: (now) => now - REPORT_DAYS * DAY,
    sql: `DELETE FROM standups WHERE rowid IN (SELECT s.rowid FROM standups s
            WHERE s.generated_at < ?1
              AND EXISTS (SELECT 1 FROM standups n
                           WHERE n.org_id = s.org_id AND n.mode = s.mode
                             AND n.generated_at < (${dayOf("s.generated_at")} + 1) * ${DAY}
                             AND (n.generated_at, n.id) > (s.generated_at, s.id))
            LIMIT ?2)`,
  },
  {
    name: "briefings",
    cutoff: (now) => now - REPORT_DAYS * DAY,
    sql: `DELETE FROM briefings WHERE rowid IN (SELECT b.rowid FROM briefings b
            WHERE b.generated_at < ?1
              AND EXISTS (SELECT 1 FROM briefings n
                           WHERE n.user_id = b.user_id
                             AND n.generated_at < (${dayOf("b.generated_at")} + 1) * ${DAY}
                             AND (n.generated_at, n.id) > (b.generated_at, b.id))
            LIMIT ?2)`,
  },
];

/** One pass over every rule; resolves to the rows deleted per table. */
export async function runRetention(
  db: Db,
  now: number,
  options: RetentionOptions = { signInWindowMs: 15 * 60_000 },
): Promise<Record<string, number>> {
  const batch = options.batch ?? RETENTION_BATCH;
  const deleted: Record<string, number> = {};
  for (const rule of RETENTION_RULES) {
    const cutoff = rule.cutoff(now, options);
    let total = 0;
    for (;;) {
      const n = await db.run(rule.sql, [cutoff, batch]);
      total += n;
      if (n < batch || options.signal?.aborted) break;
      await options.pause?.();
    }
    deleted[rule.name] = total;
  }
  return deleted;
}
