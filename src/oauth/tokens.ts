/** Token material: opaque random strings handed out once; only their SHA-256 is stored. */
import type { OAuthScope } from "../domain.ts";
import { scopeString } from "../domain.ts";
import { DAY, HOUR, MINUTE } from "../lib/clock.ts";
import { randomSecret, sha256Hex } from "../lib/random.ts";
import type { TokenPair } from "../store/oauth/tokens.ts";

export const ACCESS_TOKEN_TTL = HOUR;
export const REFRESH_TOKEN_TTL = 30 * DAY;
export const CODE_TTL = 10 * MINUTE;

/**
 * Prefixes make leaked tokens recognizable to secret scanners. None starts with `crew_`, the API
 * key prefix that auth/bearer.ts routes on.
 */
export const newAuthorizationCode = () => `crewac_${randomSecret(32)}`;

export interface RawTokenPair {
  accessToken: string;
  refreshToken: string;
  pair: TokenPair;
}

/** A fresh access + refresh pair; `refreshScopes` stay the grant's even when the access token is narrowed. */
export function newTokenPair(
  grantId: string,
  resource: string,
  scopes: readonly OAuthScope[],
  refreshScopes: readonly OAuthScope[],
  now: number,
): RawTokenPair {
  const accessToken = `crewat_${randomSecret(32)}`;
  const refreshToken = `crewrt_${randomSecret(32)}`;
  return {
    accessToken,
    refreshToken,
    pair: {
      grantId,
      resource,
      access: { hash: sha256Hex(accessToken), scopes, expiresAt: now + ACCESS_TOKEN_TTL },
      refresh: { hash: sha256Hex(refreshToken), scopes: refreshScopes, expiresAt: now + REFRESH_TOKEN_TTL },
    },
  };
}

/** RFC 6749 §5.1 success body. */
export function tokenResponseBody(raw: RawTokenPair) {
  return {
    access_token: raw.accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL / 1000,
    refresh_token: raw.refreshToken,
    scope: scopeString(raw.pair.access.scopes),
  };
}
