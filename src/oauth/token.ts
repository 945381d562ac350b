/**
 * The token endpoint (RFC 6749 §3.2, OAuth 2.1 §4.1.3, §4.3): authorization_code with PKCE S256,
 * and refresh_token with rotation. Guards run in the order the RFCs give: request syntax, client
 * authentication (§3.2.1), grant type, then the grant itself.
 */
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { sha256Hex } from "../lib/random.ts";
import type { OAuthClient } from "../store/oauth/clients.ts";
import { takeCode } from "../store/oauth/codes.ts";
import { revokeGrant } from "../store/oauth/grants.ts";
import { findRefreshToken, insertTokenPair, rotateRefreshToken } from "../store/oauth/tokens.ts";
import { authenticateClient } from "./client-auth.ts";
import { invalidGrant, invalidRequest, invalidScope, invalidTarget, OAuthError, oauthJson } from "./errors.ts";
import { readForm, repeatedParams, single } from "./form.ts";
import { verifyS256 } from "./pkce.ts";
import { resolveResource } from "./resource.ts";
import { isScopeSubset, parseScopeParam } from "./scopes.ts";
import { newTokenPair, tokenResponseBody } from "./tokens.ts";

export async function token(deps: AppDeps, c: Context<AppEnv>): Promise<Response> {
  const { db } = deps;
  const form = await readForm(c.req.raw);
  const repeated = repeatedParams(form);
  if (repeated.length > 0) throw invalidRequest(`repeated: ${repeated.join(", ")}`);
  const client = await authenticateClient(db, c.req.header("authorization"), form);
  if (!client) throw invalidRequest("no client");
  const grantType = single(form, "grant_type");
  if (grantType === "authorization_code") return exchangeCode(deps, c, client, form);
  if (grantType === "refresh_token") return refresh(deps, c, client, form);
  if (grantType === undefined) throw invalidRequest("grant_type missing");
  throw new OAuthError(400, "unsupported_grant_type", "The grant type is not supported.", grantType);
}

async function exchangeCode(deps: AppDeps, c: Context<AppEnv>, client: OAuthClient, form: URLSearchParams): Promise<Response> {
  const { db, clock, config, log } = deps;
  const now = clock.now();
  const code = single(form, "code");
  const verifier = single(form, "code_verifier");
  const redirectUri = single(form, "redirect_uri");
  if (!code) throw invalidRequest("code missing");
  if (!verifier) throw invalidRequest("code_verifier missing");
  const resource = resolveResource(config, form.getAll("resource"));
  if (resource === null) throw invalidTarget(`resource ${form.getAll("resource").join(" ")}`);

  const taken = await takeCode(db, sha256Hex(code), now);
  if (taken.status === "unknown") throw invalidGrant("unknown code");
  if (taken.status === "reused") {
    // OAuth 2.1 §4.1.3: a code used twice may have been stolen; revoke what it produced.
    await revokeGrant(db, taken.code.grantId, now);
    log.warn("authorization code reused; grant revoked", { grant_id: taken.code.grantId, request_id: c.get("requestId") });
    throw invalidGrant("code reused");
  }
  const stored = taken.code;
  if (stored.expiresAt <= now) throw invalidGrant("code expired");
  if (stored.clientId !== client.id) throw invalidGrant("code issued to another client");
  // RFC 6749 §4.1.3: required, and identical, when the authorization request carried one; when it
  // did not (one registered URI), an optional one must still be that URI.
  if (redirectUri === undefined && stored.redirectUriSent) throw invalidRequest("redirect_uri missing (it was sent at authorization)");
  if (redirectUri !== undefined && redirectUri !== stored.redirectUri) throw invalidGrant("redirect_uri mismatch");
  if (!verifyS256(verifier, stored.codeChallenge)) throw invalidGrant("PKCE verification failed");

  const raw = newTokenPair(stored.grantId, stored.resource, stored.scopes, stored.scopes, now);
  await insertTokenPair(db, raw.pair, now);
  return oauthJson(tokenResponseBody(raw));
}

async function refresh(deps: AppDeps, c: Context<AppEnv>, client: OAuthClient, form: URLSearchParams): Promise<Response> {
  const { db, clock, config, log } = deps;
  const now = clock.now();
  const presented = single(form, "refresh_token");
  if (!presented) throw invalidRequest("refresh_token missing");
  if (resolveResource(config, form.getAll("resource")) === null) throw invalidTarget(`resource ${form.getAll("resource").join(" ")}`);

  const stored = await findRefreshToken(db, sha256Hex(presented));
  if (!stored) throw invalidGrant("unknown refresh token");
  if (stored.clientId !== client.id) throw invalidGrant("refresh token of another client");
  if (stored.grantRevokedAt !== null) throw invalidGrant("grant revoked");
  if (stored.revokedAt !== null) {
    // Only rotation revokes single refresh tokens of a live grant: this one's successor has been
    // used, so it is being replayed (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2). Revoke the grant.
    await revokeGrant(db, stored.grantId, now);
    log.warn("rotated refresh token replayed; grant revoked", { grant_id: stored.grantId, request_id: c.get("requestId") });
    throw invalidGrant("refresh token replayed");
  }
  if (stored.expiresAt <= now) throw invalidGrant("refresh token expired");

  const requested = single(form, "scope");
  let scopes = stored.scopes;
  if (requested !== undefined) {
    const parsed = parseScopeParam(requested, stored.scopes);
    if (!parsed.ok) throw invalidScope(`unknown: ${parsed.unknown.join(" ")}`);
    if (!isScopeSubset(parsed.scopes, stored.scopes)) throw invalidScope("wider than the grant");
    scopes = parsed.scopes;
  }
  const raw = newTokenPair(stored.grantId, stored.resource, scopes, stored.scopes, now);
  if (!(await rotateRefreshToken(db, stored.hash, raw.pair, now))) throw invalidGrant("refresh token no longer live");
  return oauthJson(tokenResponseBody(raw));
}
