/** Registered OAuth clients (RFC 7591). The secret of a confidential client is stored as SHA-256 only. */
import type { ClientMetadata } from "../domain.ts";
import { type Db, parseJson } from "./db.ts";

export interface OAuthClient {
  id: string;
  secretHash: string | null;
  metadata: ClientMetadata;
  createdAt: number;
  firstUsedAt: number | null;
}

export async function insertClient(
  db: Db,
  client: { id: string; secretHash: string | null; metadata: ClientMetadata; registeredFrom: string },
  now: number,
): Promise<void> {
  await db.run("INSERT INTO oauth_clients (id, secret_hash, metadata, registered_from, created_at) VALUES (?, ?, ?, ?, ?)", [
    client.id,
    client.secretHash,
    JSON.stringify(client.metadata),
    client.registeredFrom,
    now,
  ]);
}

export async function findClient(db: Db, id: string): Promise<OAuthClient | null> {
  const row = await db.one<{ id: string; secret_hash: string | null; metadata: string; created_at: number; first_used_at: number | null }>(
    "SELECT id, secret_hash, metadata, created_at, first_used_at FROM oauth_clients WHERE id = ?",
    [id],
  );
  if (!row) return null;
  return {
    id: row.id,
    secretHash: row.secret_hash,
    metadata: parseJson<ClientMetadata>(row.metadata, {
      redirect_uris: [],
      token_endpoint_auth_method: "none",
      grant_types: [],
      response_types: [],
    }),
    createdAt: row.created_at,
    firstUsedAt: row.first_used_at,
  };
}

export async function countRegistrationsSince(db: Db, address: string, since: number): Promise<number> {
  const row = await db.one<{ n: number }>("SELECT count(*) AS n FROM oauth_clients WHERE registered_from = ? AND created_at > ?", [
    address,
    since,
  ]);
  return row?.n ?? 0;
}

/** Registrations never used for a grant: clients re-register on every fresh connection, so these pile up. */
export async function purgeUnusedClients(db: Db, createdBefore: number): Promise<number> {
  return db.run("DELETE FROM oauth_clients WHERE first_used_at IS NULL AND created_at < ?", [createdBefore]);
}
