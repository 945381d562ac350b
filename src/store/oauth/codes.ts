/** Authorization codes: single use, short-lived, bound to client, redirect URI, PKCE challenge and resource. Stored as SHA-256. */

import type { OAuthScope } from "../../domain.ts";
import { DAY } from "../../lib/clock.ts";
import { boolean, integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";
import { oauthScopes } from "./grants.ts";

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

/** The oauth_codes table, in the order inserts name its columns (the use is set by the exchange). */
const CODES = table("oauth_codes", {
  codeHash: text(),
  grantId: text(),
  clientId: text(),
  redirectUri: text(),
  redirectUriSent: boolean(),
  codeChallenge: text(),
  resource: text(),
  scopes: oauthScopes(),
  expiresAt: integer(),
  usedAt: nullable(integer()),
});

const CODE = CODES.omit("usedAt");

/** Stores a code; used and expired codes are kept a day (a late replay still revokes the grant), then purged. */
export async function insertCode(db: Db, code: AuthorizationCode, now: number): Promise<void> {
  await db.batch(
    [
      { sql: "DELETE FROM oauth_codes WHERE expires_at < ?", args: [now - DAY] },
      {
        sql: `INSERT INTO oauth_codes (${CODE.insertColumns})
              VALUES (${CODE.placeholders})`,
        args: CODE.args(code),
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
  const fresh = await db.one<SqlRow>("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL RETURNING *", [
    now,
    codeHash,
  ]);
  if (fresh) return { status: "fresh", code: CODE.read(fresh) };
  const used = await db.one<SqlRow>("SELECT * FROM oauth_codes WHERE code_hash = ?", [codeHash]);
  return used ? { status: "reused", code: CODE.read(used) } : { status: "unknown" };
}
