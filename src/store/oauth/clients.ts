/** Registered OAuth clients (RFC 7591). The secret of a confidential client is stored as SHA-256 only. */
import type { ClientMetadata } from "../../domain.ts";
import { integer, json, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface OAuthClient {
  id: string;
  secretHash: string | null;
  metadata: ClientMetadata;
  createdAt: number;
  firstUsedAt: number | null;
}

/** The oauth_clients table, in the order inserts name its columns. */
const CLIENTS = table("oauth_clients", {
  id: text(),
  secretHash: nullable(text()),
  metadata: json<ClientMetadata>({
    redirect_uris: [],
    token_endpoint_auth_method: "none",
    grant_types: [],
    response_types: [],
  }),
  registeredFrom: text(),
  createdAt: integer(),
  firstUsedAt: nullable(integer()),
});

const INSERTED = CLIENTS.omit("firstUsedAt");
const CLIENT = CLIENTS.omit("registeredFrom");

export async function insertClient(
  db: Db,
  client: { id: string; secretHash: string | null; metadata: ClientMetadata; registeredFrom: string },
  now: number,
): Promise<void> {
  await db.run(
    `INSERT INTO oauth_clients (${INSERTED.insertColumns}) VALUES (${INSERTED.placeholders})`,
    INSERTED.args({ ...client, createdAt: now }),
  );
}

export async function findClient(db: Db, id: string): Promise<OAuthClient | null> {
  const row = await db.one<SqlRow>("SELECT id, secret_hash, metadata, created_at, first_used_at FROM oauth_clients WHERE id = ?", [id]);
  return row ? CLIENT.read(row) : null;
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
