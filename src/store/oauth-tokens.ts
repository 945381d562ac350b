import type { OAuthScope } from "../auth/access.ts";
import type { Plan } from "../auth/plans.ts";
import { type Db, one } from "./db.ts";

export interface AccessTokenOwner {
  userId: string;
  orgId: string;
  email: string;
  name: string;
  plan: Plan;
  grantId: string;
  clientId: string;
  scopes: OAuthScope[];
  resource: string;
}

/**
 * The owner of an unexpired, unrevoked access token whose grant is alive. Read on every request,
 * so revoking a grant or a token is immediate.
 */
export async function findActiveAccessToken(db: Db, tokenHash: string, now: number): Promise<AccessTokenOwner | null> {
  const row = await one<{
    user_id: string;
    org_id: string;
    email: string;
    name: string;
    plan: string;
    grant_id: string;
    client_id: string;
    scopes: string;
    resource: string;
  }>(
    db,
    `SELECT u.id AS user_id, u.org_id, u.email, u.name, u.plan, g.id AS grant_id, g.client_id, t.scopes, t.resource
       FROM oauth_tokens t
       JOIN oauth_grants g ON g.id = t.grant_id
       JOIN users u ON u.id = g.user_id
      WHERE t.token_hash = ? AND t.kind = 'access' AND t.revoked_at IS NULL AND g.revoked_at IS NULL AND t.expires_at > ?`,
    [tokenHash, now],
  );
  if (!row) return null;
  return {
    userId: row.user_id,
    orgId: row.org_id,
    email: row.email,
    name: row.name,
    plan: row.plan as Plan,
    grantId: row.grant_id,
    clientId: row.client_id,
    scopes: row.scopes.split(" ").filter(Boolean) as OAuthScope[],
    resource: row.resource,
  };
}
