/** Authorization codes: single use, short-lived, bound to client, redirect URI, PKCE challenge and resource. Stored as SHA-256. */

import type { OAuthScope } from "../domain.ts";
import { scopeString, scopesFromString } from "../domain.ts";
import { DAY } from "../lib/clock.ts";
import type { Db } from "./db.ts";

export interface AuthorizationCode {
  codeHash: string;
  grantId: string;
  clientId: string;
  redirectUri: string;
  /** Whether the authorization request named redirect_uri: the token request must then repeat it. */
  redirectUriSent: boolean;
  codeChallenge: string;
  resource: string;
  scopes: OAuthScope[];
  expiresAt: number;
}

interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scopes: string;
  expires_at: number;
  used_at: number | null;
  redirect_uri_sent: number;
}

const toCode = (r: CodeRow): AuthorizationCode => ({
  codeHash: r.code_hash,
  grantId: r.grant_id,
  clientId: r.client_id,
  redirectUri: r.redirect_uri,
  redirectUriSent: r.redirect_uri_sent !== 0,
  codeChallenge: r.code_challenge,
  resource: r.resource,
  scopes: scopesFromString(r.scopes),
  expiresAt: r.expires_at,
});

/** Stores a code; used and expired codes are kept a day (a late replay still revokes the grant), then purged. */
export async function insertCode(db: Db, code: AuthorizationCode, now: number): Promise<void> {
  await db.batch(
    [
      { sql: "DELETE FROM oauth_codes WHERE expires_at < ?", args: [now - DAY] },
      {
        sql: `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, redirect_uri_sent, code_challenge, resource, scopes, expires_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [
          code.codeHash,
          code.grantId,
          code.clientId,
          code.redirectUri,
          code.redirectUriSent ? 1 : 0,
          code.codeChallenge,
          code.resource,
          scopeString(code.scopes),
          code.expiresAt,
        ],
      },
    ],
    "write",
  );
}

export type CodeTake = { status: "fresh"; code: AuthorizationCode } | { status: "reused"; code: AuthorizationCode } | { status: "unknown" };

/**
 * Marks the code used and returns it, atomically: of two concurrent exchanges exactly one gets
 * `fresh`. A code already used comes back as `reused` (the caller revokes its grant).
 */
export async function takeCode(db: Db, codeHash: string, now: number): Promise<CodeTake> {
  const fresh = await db.one<CodeRow>("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL RETURNING *", [
    now,
    codeHash,
  ]);
  if (fresh) return { status: "fresh", code: toCode(fresh) };
  const used = await db.one<CodeRow>("SELECT * FROM oauth_codes WHERE code_hash = ?", [codeHash]);
  return used ? { status: "reused", code: toCode(used) } : { status: "unknown" };
}
