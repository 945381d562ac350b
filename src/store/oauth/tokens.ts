import type { OAuthScope } from "../../domain.ts";
import { DAY } from "../../lib/clock.ts";
import { integer, nullable, type SqlRow, table, text } from "../columns.ts";
import { CREDENTIAL_USER_COLUMNS, type CredentialUser, credentialUserOf } from "../credential-user.ts";
import type { Db } from "../db.ts";
import { oauthScopes } from "./grants.ts";

export interface AccessTokenOwner extends CredentialUser {
  grantId: string;
  clientId: string;
  scopes: OAuthScope[];
  resource: string;
  /** The grant's last use (token issued or used), to refresh "last used" at most once a minute. */
  grantLastUsedAt: number | null;
}

/** What an access token lookup reads besides its person (`g.id AS grant_id, g.client_id, t.scopes, t.resource, g.last_used_at`). */
const ACCESS = table("oauth_tokens", {
  grantId: text(),
  clientId: text(),
  scopes: oauthScopes(),
  resource: text(),
  grantLastUsedAt: nullable(integer("last_used_at")),
});

/**
 * The owner of an unexpired, unrevoked access token whose grant is alive. Read on every request,
 * so revoking a grant or a token is immediate.
 */
export async function findActiveAccessToken(db: Db, tokenHash: string, now: number): Promise<AccessTokenOwner | null> {
  const row = await db.one<SqlRow>(
    `SELECT ${CREDENTIAL_USER_COLUMNS}, g.id AS grant_id, g.client_id, t.scopes, t.resource, g.last_used_at
       FROM oauth_tokens t
       JOIN oauth_grants g ON g.id = t.grant_id
       JOIN users u ON u.id = g.user_id
      WHERE t.token_hash = ? AND t.kind = 'access' AND t.revoked_at IS NULL AND g.revoked_at IS NULL AND t.expires_at > ?`,
    [tokenHash, now],
  );
  if (!row) return null;
  return { ...credentialUserOf(row), ...ACCESS.read(row) };
}

/** "Last used" of a connected application, on use of its access token. */
export async function touchGrant(db: Db, grantId: string, now: number): Promise<void> {
  await db.run("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?", [now, grantId]);
}

export interface IssuedToken {
  hash: string;
  scopes: readonly OAuthScope[];
  expiresAt: number;
}

export interface TokenPair {
  grantId: string;
  resource: string;
  access: IssuedToken;
  refresh: IssuedToken;
}

/** The oauth_tokens table, in the order inserts name its columns. */
const TOKENS = table("oauth_tokens", {
  tokenHash: text(),
  grantId: text(),
  kind: text<"access" | "refresh">(),
  scopes: oauthScopes(),
  resource: text(),
  createdAt: integer(),
  expiresAt: integer(),
  parentHash: nullable(text()),
});

const TOKEN_COLUMNS = TOKENS.insertColumns;

function tokenArgs(grantId: string, kind: "access" | "refresh", t: IssuedToken, resource: string, now: number, parent: string | null) {
  return TOKENS.args({
    tokenHash: t.hash,
    grantId,
    kind,
    scopes: [...t.scopes],
    resource,
    createdAt: now,
    expiresAt: t.expiresAt,
    parentHash: parent,
  });
}

const insertToken = (...a: Parameters<typeof tokenArgs>) => ({
  sql: `INSERT INTO oauth_tokens (${TOKEN_COLUMNS}) VALUES (${TOKENS.placeholders})`,
  args: tokenArgs(...a),
});

/**
 * The first tokens of a grant (code exchange), and the grant's last use, in one transaction.
 * Tokens expired for a day are purged here: code exchanges are rare enough to carry that cost.
 */
export async function insertTokenPair(db: Db, pair: TokenPair, now: number): Promise<void> {
  await db.batch(
    [
      { sql: "DELETE FROM oauth_tokens WHERE expires_at < ?", args: [now - DAY] },
      insertToken(pair.grantId, "access", pair.access, pair.resource, now, null),
      insertToken(pair.grantId, "refresh", pair.refresh, pair.resource, now, null),
      { sql: "UPDATE oauth_grants SET last_used_at = ? WHERE id = ?", args: [now, pair.grantId] },
    ],
    "write",
  );
}

export interface RefreshToken {
  hash: string;
  grantId: string;
  clientId: string;
  scopes: OAuthScope[];
  resource: string;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
  grantRevokedAt: number | null;
}

const REFRESH = table("oauth_tokens", {
  hash: text("token_hash"),
  grantId: text(),
  clientId: text(),
  scopes: oauthScopes(),
  resource: text(),
  expiresAt: integer(),
  usedAt: nullable(integer()),
  revokedAt: nullable(integer()),
  grantRevokedAt: nullable(integer()),
});

export async function findRefreshToken(db: Db, hash: string): Promise<RefreshToken | null> {
  const row = await db.one<SqlRow>(
    `SELECT t.token_hash, t.grant_id, g.client_id, t.scopes, t.resource, t.expires_at, t.used_at, t.revoked_at, g.revoked_at AS grant_revoked_at
       FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
      WHERE t.token_hash = ? AND t.kind = 'refresh'`,
    [hash],
  );
  return row ? REFRESH.read(row) : null;
}

/**
 * Refresh token rotation with a grace (src/docs/notes/oauth.md). Presenting live refresh token P issues a new pair
 * (refresh child C) and revokes every other refresh token of the grant except P and P's children
 * — that is, P's predecessor, whose successor (P) has now been used, and P's siblings. P itself,
 * and every child of it, keep working until one of those children is first used: a client that
 * retried after a lost response, or refreshed twice at once (two windows, two processes sharing a
 * token store), may have kept any of the children, and whichever it uses wins. A revoked refresh
 * token presented later is a replay: the caller revokes the grant.
 *
 * One transaction; every statement is conditioned on P and its grant being live at that moment,
 * so two concurrent rotations cannot both revive a revoked token. Returns false when P was no
 * longer live.
 */
export async function rotateRefreshToken(db: Db, presentedHash: string, pair: TokenPair, now: number): Promise<boolean> {
  // INSERT … SELECT … WHERE: the new token exists only if the presented one is still live.
  const insertIfLive = (...a: Parameters<typeof tokenArgs>) => ({
    sql: `INSERT INTO oauth_tokens (${TOKEN_COLUMNS}) SELECT ${TOKENS.placeholders}
           WHERE EXISTS (SELECT 1 FROM oauth_tokens p JOIN oauth_grants g ON g.id = p.grant_id
                          WHERE p.token_hash = ? AND p.revoked_at IS NULL AND p.expires_at > ? AND g.revoked_at IS NULL)`,
    args: [...tokenArgs(...a), presentedHash, now],
  });
  const results = await db.batch(
    [
      insertIfLive(pair.grantId, "refresh", pair.refresh, pair.resource, now, presentedHash),
      insertIfLive(pair.grantId, "access", pair.access, pair.resource, now, null),
      {
        sql: `UPDATE oauth_tokens SET revoked_at = ?
               WHERE grant_id = ? AND kind = 'refresh' AND revoked_at IS NULL AND token_hash != ?
                 AND (parent_hash IS NULL OR parent_hash != ?)
                 AND EXISTS (SELECT 1 FROM oauth_tokens WHERE token_hash = ?)`,
        args: [now, pair.grantId, presentedHash, presentedHash, pair.refresh.hash],
      },
      {
        sql: `UPDATE oauth_tokens SET used_at = COALESCE(used_at, ?) WHERE token_hash = ? AND EXISTS (SELECT 1 FROM oauth_tokens WHERE token_hash = ?)`,
        args: [now, presentedHash, pair.refresh.hash],
      },
      {
        sql: "UPDATE oauth_grants SET last_used_at = ? WHERE id = ? AND EXISTS (SELECT 1 FROM oauth_tokens WHERE token_hash = ?)",
        args: [now, pair.grantId, pair.refresh.hash],
      },
    ],
    "write",
  );
  return (results[0]?.rowsAffected ?? 0) === 1;
}

const REVOCATION = table("oauth_tokens", { kind: text<"access" | "refresh">(), grantId: text(), clientId: text() });

/** What a token revocation (RFC 7009) needs to know: its kind, grant and client. */
export async function findTokenForRevocation(
  db: Db,
  hash: string,
): Promise<{ kind: "access" | "refresh"; grantId: string; clientId: string } | null> {
  const row = await db.one<SqlRow>(
    "SELECT t.kind, t.grant_id, g.client_id FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?",
    [hash],
  );
  return row ? REVOCATION.read(row) : null;
}

export async function revokeToken(db: Db, hash: string, now: number): Promise<void> {
  await db.execute({ sql: "UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL", args: [now, hash] });
}
