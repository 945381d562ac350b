/**
 * The OAuth legs of a connection (src/docs/notes/connections.md), through openid-client:
 * authorization code with PKCE (S256), `state` and `nonce` (RFC 9700 §2.1.1), the ID token
 * checked by the library; refresh (RFC 6749 §6) and revocation (RFC 7009) where the provider has
 * an endpoint for it (Google does; Microsoft's v2.0 endpoint has none: the tokens are deleted).
 */
import * as client from "openid-client";
import type { ConnectionProvider } from "../../domain.ts";
import { oauthConfiguration, type Parts, PROVIDERS, type ProviderEnv, scopesFor } from "./providers.ts";

/** What the browser keeps between the redirect and the callback (sealed in an HttpOnly cookie). */
export interface ConnectAttempt {
  provider: ConnectionProvider;
  userId: string;
  state: string;
  nonce: string;
  verifier: string;
  parts: Parts;
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
}

export async function beginConnect(
  provider: ConnectionProvider,
  env: ProviderEnv,
  redirectUri: string,
  userId: string,
  parts: Parts,
  loginHint?: string,
): Promise<{ url: string; attempt: ConnectAttempt }> {
  const config = await oauthConfiguration(provider, env);
  const attempt: ConnectAttempt = {
    provider,
    userId,
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    parts,
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: scopesFor(provider, parts).join(" "),
    state: attempt.state,
    nonce: attempt.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: "S256",
    ...PROVIDERS[provider].extra,
    ...(loginHint ? { login_hint: loginHint } : {}),
  });
  return { url: url.href, attempt };
}

export interface Connected {
  tokens: Tokens;
  email: string;
  /** The scopes granted (the token response's `scope`, else those asked for). */
  scopes: string[];
}

const expiry = (now: number, expiresIn: number | undefined) => now + (expiresIn ?? 3600) * 1000;

/** Exchanges the code; throws when state, nonce, PKCE or the ID token do not check out, or no refresh token came. */
export async function finishConnect(env: ProviderEnv, callbackUrl: URL, attempt: ConnectAttempt, now: number): Promise<Connected> {
  const config = await oauthConfiguration(attempt.provider, env);
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: attempt.verifier,
    expectedState: attempt.state,
    expectedNonce: attempt.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  const email = String(claims?.email ?? claims?.preferred_username ?? "").trim();
  if (!email) throw new Error("the provider named no email address for the account");
  if (!tokens.refresh_token) throw new Error("the provider sent no refresh token (offline access was not granted)");
  const scopes = tokens.scope ? tokens.scope.split(/\s+/).filter(Boolean) : scopesFor(attempt.provider, attempt.parts);
  return {
    tokens: { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, expiresAt: expiry(now, tokens.expires_in) },
    email,
    scopes,
  };
}

/** The refresh was refused for good (invalid_grant: revoked, expired, password changed): only a reconnect helps. */
export class AccessRevoked extends Error {}

/** New tokens for a refresh token; the provider may rotate the refresh token (Microsoft does), else the old one stays. */
export async function refreshTokens(provider: ConnectionProvider, env: ProviderEnv, refreshToken: string, now: number): Promise<Tokens> {
  const config = await oauthConfiguration(provider, env);
  try {
    const tokens = await client.refreshTokenGrant(config, refreshToken);
    return {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? refreshToken,
      expiresAt: expiry(now, tokens.expires_in),
    };
  } catch (error) {
    if (error instanceof client.ResponseBodyError && (error.error === "invalid_grant" || error.error === "unauthorized_client")) {
      throw new AccessRevoked(error.error_description ?? error.error);
    }
    throw error;
  }
}

/** Revokes the refresh token at the provider when it has a revocation endpoint (RFC 7009); false when it has none. */
export async function revokeAtProvider(provider: ConnectionProvider, env: ProviderEnv, refreshToken: string): Promise<boolean> {
  const config = await oauthConfiguration(provider, env);
  if (!config.serverMetadata().revocation_endpoint) return false;
  await client.tokenRevocation(config, refreshToken, { token_type_hint: "refresh_token" });
  return true;
}
