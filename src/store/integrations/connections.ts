/**
 * A person's Google Workspace or Microsoft 365 connection (src/docs/notes/connections.md): a row of
 * `integrations` of kind `google` or `microsoft`, its `config` JSON holding the tokens only sealed
 * (src/integrations/secret-box.ts), its `state` JSON the mail read position and the backoff.
 */
import type { InStatement } from "@libsql/client";
import type { ConnectionProvider } from "../../domain.ts";
import { integer, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface StoredConnection {
  userId: string;
  provider: ConnectionProvider;
  /** JSON text; interpreted by src/integrations/connections/. */
  config: string;
  state: string;
  createdAt: number;
  updatedAt: number;
}

const CONNECTION = table("integrations", {
  userId: text("user_id"),
  provider: text<ConnectionProvider>("kind"),
  config: text(),
  state: text(),
  createdAt: integer(),
  updatedAt: integer(),
});

const COLUMNS = CONNECTION.select();

/** The person's connections, Google first. */
export async function connectionsOfUser(db: Db, userId: string): Promise<StoredConnection[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${COLUMNS} FROM integrations WHERE user_id = ? AND kind IN ('google', 'microsoft') ORDER BY kind`,
    [userId],
  );
  return rows.map(CONNECTION.read);
}

export async function getConnection(db: Db, userId: string, provider: ConnectionProvider): Promise<StoredConnection | null> {
  const row = await db.one<SqlRow>(`SELECT ${COLUMNS} FROM integrations WHERE user_id = ? AND kind = ?`, [userId, provider]);
  return row ? CONNECTION.read(row) : null;
}

/** A connection of an active person of the organization, with whose it is. */
export interface OrgConnection extends StoredConnection {
  orgId: string;
  name: string;
}

const ORG_CONNECTION = table("integrations", {
  ...CONNECTION.columns,
  orgId: text("org_id"),
  name: text(),
});

/**
 * The connections of the organization's active people, owners first, then by who connected first,
 * at most `limit`. The caller keeps those with mail (or calendar) ticked: a JSON flag in `config`.
 */
export async function connectionsOfOrg(db: Db, orgId: string, limit: number): Promise<OrgConnection[]> {
  const rows = await db.all<SqlRow>(
    `SELECT i.user_id, i.kind, i.config, i.state, i.created_at, i.updated_at, u.org_id, u.name
       FROM integrations i JOIN users u ON u.id = i.user_id
      WHERE u.org_id = ? AND i.kind IN ('google', 'microsoft') AND u.deactivated_at IS NULL
      ORDER BY CASE u.role WHEN 'owner' THEN 0 ELSE 1 END, i.created_at, u.id LIMIT ?`,
    [orgId, limit],
  );
  return rows.map(ORG_CONNECTION.read);
}

/** Connects or reconnects: the tokens and choices replace the old ones, and the read position starts afresh. */
export function saveConnectionStatement(userId: string, provider: ConnectionProvider, config: string, now: number): InStatement {
  return {
    sql: `INSERT INTO integrations (user_id, kind, config, state, created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?)
          ON CONFLICT (user_id, kind) DO UPDATE SET config = excluded.config, state = '{}', updated_at = excluded.updated_at`,
    args: [userId, provider, config, now, now],
  };
}

/**
 * New tokens after a refresh, only on the connection they were refreshed for (same creation
 * time): a reconnect meanwhile keeps its own tokens.
 */
export async function saveConnectionConfig(
  db: Db,
  c: Pick<StoredConnection, "userId" | "provider" | "createdAt">,
  config: string,
  now: number,
) {
  await db.run("UPDATE integrations SET config = ?, updated_at = ? WHERE user_id = ? AND kind = ? AND created_at = ?", [
    config,
    now,
    c.userId,
    c.provider,
    c.createdAt,
  ]);
}

/** The read position and backoff, on the same connection only (as saveConnectionConfig). */
export async function saveConnectionState(db: Db, c: Pick<StoredConnection, "userId" | "provider" | "createdAt">, state: string) {
  await db.run("UPDATE integrations SET state = ? WHERE user_id = ? AND kind = ? AND created_at = ?", [
    state,
    c.userId,
    c.provider,
    c.createdAt,
  ]);
}

export function deleteConnectionStatement(userId: string, provider: ConnectionProvider): InStatement {
  return { sql: "DELETE FROM integrations WHERE user_id = ? AND kind = ?", args: [userId, provider] };
}
