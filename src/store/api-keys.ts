import type { KeyScope } from "../domain.ts";
import { type Db, parseJson } from "./db.ts";
import { type CredentialUser, type CredentialUserRow, credentialUserOf } from "./users.ts";

export interface ApiKeyRecord {
  hash: string;
  name: string;
  scopes: KeyScope[];
  createdAt: number;
  lastUsedAt: number | null;
}

interface KeyRow {
  hash: string;
  name: string;
  scopes: string;
  created_at: number;
  last_used_at: number | null;
}

const toKey = (r: KeyRow): ApiKeyRecord => ({
  hash: r.hash,
  name: r.name,
  scopes: parseJson<KeyScope[]>(r.scopes, []),
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export async function insertApiKey(
  db: Db,
  key: { hash: string; userId: string; name: string; scopes: KeyScope[] },
  now: number,
): Promise<void> {
  await db.run("INSERT INTO api_keys (hash, user_id, name, scopes, created_at) VALUES (?, ?, ?, ?, ?)", [
    key.hash,
    key.userId,
    key.name,
    JSON.stringify(key.scopes),
    now,
  ]);
}

/** Active keys of one user, newest first. */
export async function listActiveApiKeys(db: Db, userId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.all<KeyRow>(
    "SELECT hash, name, scopes, created_at, last_used_at FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, rowid DESC",
    [userId],
  );
  return rows.map(toKey);
}

/** Revokes an active key of this user; false when it is not one (unknown, revoked, or another user's). */
export async function revokeApiKey(db: Db, userId: string, hash: string, now: number): Promise<boolean> {
  return (
    (await db.run("UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND user_id = ? AND revoked_at IS NULL", [now, hash, userId])) === 1
  );
}

/**
 * Inserts a key only while fewer than `limit` keys (revoked ones included) were created by the user
 * after `since`: one statement, so concurrent creations cannot overshoot the limit.
 */
export async function insertApiKeyWithinLimit(
  db: Db,
  key: { hash: string; userId: string; name: string; scopes: KeyScope[] },
  now: number,
  limit: number,
  since: number,
): Promise<boolean> {
  const inserted = await db.run(
    `INSERT INTO api_keys (hash, user_id, name, scopes, created_at)
     SELECT ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM api_keys WHERE user_id = ? AND created_at > ?) < ?`,
    [key.hash, key.userId, key.name, JSON.stringify(key.scopes), now, key.userId, since, limit],
  );
  return inserted === 1;
}

/** When the oldest creation after `since` was: the window frees a slot one hour after it. */
export async function oldestKeyCreatedSince(db: Db, userId: string, since: number): Promise<number | null> {
  const row = await db.one<{ t: number | null }>("SELECT min(created_at) AS t FROM api_keys WHERE user_id = ? AND created_at > ?", [
    userId,
    since,
  ]);
  return row?.t ?? null;
}

export interface KeyOwner extends CredentialUser {
  scopes: KeyScope[];
  lastUsedAt: number | null;
}

/** The owner of an active key, read fresh on every request (revocation and plan changes are immediate). */
export async function findActiveKeyOwner(db: Db, hash: string): Promise<KeyOwner | null> {
  const [row] = await db.all<
    CredentialUserRow & {
      scopes: string;
      last_used_at: number | null;
    }
  >(
    `SELECT u.id AS user_id, u.org_id, u.email, u.name, u.plan, u.role, k.scopes, k.last_used_at
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.hash = ? AND k.revoked_at IS NULL`,
    [hash],
  );
  if (!row) return null;
  return {
    ...credentialUserOf(row),
    scopes: parseJson<KeyScope[]>(row.scopes, []),
    lastUsedAt: row.last_used_at,
  };
}

export async function touchApiKey(db: Db, hash: string, now: number): Promise<void> {
  await db.run("UPDATE api_keys SET last_used_at = ? WHERE hash = ?", [now, hash]);
}
