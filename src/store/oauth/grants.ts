/**
 * OAuth grants: one per approved authorization (user × client × scopes × resource). Codes and
 * tokens hang off a grant; revoking the grant kills every token issued under it at once (the
 * token lookup joins the grant).
 */
import type { ClientMetadata, OAuthScope } from "../../domain.ts";
import { scopeString, scopesFromString } from "../../domain.ts";
import { custom, integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface Grant {
  id: string;
  clientId: string;
  userId: string;
  scopes: OAuthScope[];
  resource: string;
  redirectUri: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface ConnectedApp extends Grant {
  clientName: string | null;
}

/** Scopes as stored: space-separated, canonical order (src/domain.ts); unknown words are dropped on reading. */
export const oauthScopes = custom<OAuthScope[]>(
  (value) => scopesFromString(String(value ?? "")),
  (value) => scopeString(value),
);

/** The oauth_grants table, in the order inserts name its columns. */
const GRANTS = table("oauth_grants", {
  id: text(),
  clientId: text(),
  userId: text(),
  scopes: oauthScopes(),
  resource: text(),
  redirectUri: text(),
  createdAt: integer(),
  lastUsedAt: nullable(integer()),
  revokedAt: nullable(integer()),
});

const COLUMNS = GRANTS.select("g");

const INSERTED = GRANTS.omit("lastUsedAt", "revokedAt");

/** The client's name, from its registration. */
const CLIENT_NAME = table("oauth_clients", { metadata: json<Partial<ClientMetadata>>({}) });

/** Inserts the grant and marks its client as used (so the unused-registration purge keeps it), in one transaction. */
export async function insertGrant(db: Db, g: Omit<Grant, "createdAt" | "lastUsedAt" | "revokedAt">, now: number): Promise<void> {
  await db.batch(
    [
      {
        sql: `INSERT INTO oauth_grants (${INSERTED.insertColumns}) VALUES (${INSERTED.placeholders})`,
        args: INSERTED.args({ ...g, createdAt: now }),
      },
      { sql: "UPDATE oauth_clients SET first_used_at = ? WHERE id = ? AND first_used_at IS NULL", args: [now, g.clientId] },
    ],
    "write",
  );
}

/**
 * The redirect URIs people approved for a client on the consent page (revoked grants included: the
 * address was approved once). Bounded: a client has a handful of callbacks, loopback ports aside.
 */
export async function approvedRedirectUris(db: Db, clientId: string): Promise<string[]> {
  const rows = await db.all<{ redirect_uri: string }>("SELECT DISTINCT redirect_uri FROM oauth_grants WHERE client_id = ? LIMIT 100", [
    clientId,
  ]);
  return rows.map((r) => r.redirect_uri);
}

/** Revokes the grant and every token under it, in one transaction. Returns whether the grant was live. */
export async function revokeGrant(db: Db, grantId: string, now: number, userId?: string): Promise<boolean> {
  const owner = userId === undefined ? "" : " AND user_id = ?";
  const args = userId === undefined ? [now, grantId] : [now, grantId, userId];
  const [grant] = await db.batch(
    [
      { sql: `UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL${owner}`, args },
      {
        sql: `UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL
                AND EXISTS (SELECT 1 FROM oauth_grants WHERE id = ? AND revoked_at IS NOT NULL${owner})`,
        args: userId === undefined ? [now, grantId, grantId] : [now, grantId, grantId, userId],
      },
    ],
    "write",
  );
  return (grant?.rowsAffected ?? 0) === 1;
}

/**
 * The user's connected applications: live grants that still hold a live refresh token (a grant
 * whose code was never exchanged, or whose tokens all expired, connects nothing). Newest first.
 */
export async function listConnectedApps(db: Db, userId: string, now: number): Promise<ConnectedApp[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${COLUMNS}, c.metadata
       FROM oauth_grants g
       LEFT JOIN oauth_clients c ON c.id = g.client_id
      WHERE g.user_id = ? AND g.revoked_at IS NULL
        AND EXISTS (SELECT 1 FROM oauth_tokens t
                     WHERE t.grant_id = g.id AND t.kind = 'refresh' AND t.revoked_at IS NULL AND t.expires_at > ?)
      ORDER BY g.created_at DESC, g.id DESC`,
    [userId, now],
  );
  return rows.map((row) => ({ ...GRANTS.read(row), clientName: CLIENT_NAME.read(row).metadata.client_name ?? null }));
}
