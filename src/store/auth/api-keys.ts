import type { KeyScope } from "../../domain.ts";
import { integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import { CREDENTIAL_USER_COLUMNS, type CredentialUser, credentialUserOf } from "../credential-user.ts";
import type { Db } from "../db.ts";
import { rowLockStatement } from "../row-lock.ts";

export interface ApiKeyRecord {
  hash: string;
  name: string;
  scopes: KeyScope[];
  createdAt: number;
  lastUsedAt: number | null;
}

/** The api_keys table, in the order inserts name its columns; only the key's SHA-256 is stored. */
const API_KEYS = table("api_keys", {
  hash: text(),
  userId: text(),
  name: text(),
  scopes: json<KeyScope[]>([]),
  createdAt: integer(),
  lastUsedAt: nullable(integer()),
});

const INSERTED = API_KEYS.omit("lastUsedAt");
const KEY = API_KEYS.omit("userId");
const USE = API_KEYS.pick("scopes", "lastUsedAt");

export async function insertApiKey(
  db: Db,
  key: { hash: string; userId: string; name: string; scopes: KeyScope[] },
  now: number,
): Promise<void> {
  await db.run(
    `INSERT INTO api_keys (${INSERTED.insertColumns}) VALUES (${INSERTED.placeholders})`,
    INSERTED.args({ ...key, createdAt: now }),
  );
}

/** Active keys of one user, newest first. */
export async function listActiveApiKeys(db: Db, userId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.all<SqlRow>(
    "SELECT hash, name, scopes, created_at, last_used_at FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, rowid DESC",
    [userId],
  );
  return rows.map(KEY.read);
}

/** Revokes an active key of this user; false when it is not one (unknown, revoked, or another user's). */
export async function revokeApiKey(db: Db, userId: string, hash: string, now: number): Promise<boolean> {
  return (
    (await db.run("UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND user_id = ? AND revoked_at IS NULL", [now, hash, userId])) === 1
  );
}

/**
 * Inserts a key only while fewer than `limit` keys (revoked ones included) were created by the user
 * after `since`. The user's row is locked first, so concurrent creations, on any number of
 * processes, count one after another and cannot overshoot the limit (store/row-lock.ts).
 */
export async function insertApiKeyWithinLimit(
  db: Db,
  key: { hash: string; userId: string; name: string; scopes: KeyScope[] },
  now: number,
  limit: number,
  since: number,
): Promise<boolean> {
  const [, inserted] = await db.batch(
    [
      rowLockStatement("users", "deactivated_at", "id = ?", [key.userId]),
      {
        sql: `INSERT INTO api_keys (${INSERTED.insertColumns})
              SELECT ${INSERTED.placeholders} WHERE (SELECT count(*) FROM api_keys WHERE user_id = ? AND created_at > ?) < ?`,
        args: [...INSERTED.args({ ...key, createdAt: now }), key.userId, since, limit],
      },
    ],
    "write",
  );
  return inserted?.rowsAffected === 1;
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
  const [row] = await db.all<SqlRow>(
    `SELECT ${CREDENTIAL_USER_COLUMNS}, k.scopes, k.last_used_at
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.hash = ? AND k.revoked_at IS NULL`,
    [hash],
  );
  if (!row) return null;
  return { ...credentialUserOf(row), ...USE.read(row) };
}

export async function touchApiKey(db: Db, hash: string, now: number): Promise<void> {
  await db.run("UPDATE api_keys SET last_used_at = ? WHERE hash = ?", [now, hash]);
}
