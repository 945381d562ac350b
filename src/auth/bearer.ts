/**
 * Bearer authentication (RFC 6750): API keys and OAuth access tokens. Verifying the credential is
 * kept apart from rendering the challenge (http/errors.ts builds WWW-Authenticate).
 */
import type { Config } from "../config.ts";
import type { Credential, Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { isMcpViewPath } from "../lib/mcp-paths.ts";
import { sha256Hex } from "../lib/random.ts";
import { findActiveKeyOwner, touchApiKey } from "../store/auth/api-keys.ts";
import type { Db } from "../store/db.ts";
import { findActiveAccessToken, touchGrant } from "../store/oauth/tokens.ts";
import { principalFor } from "./access.ts";
import { isApiKey } from "./api-keys.ts";

/** RFC 6750 §2.1: `Bearer` (any case), one space, a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** last_used_at is written at most once a minute per key or grant, keeping the hot path to reads. */
const TOUCH_EVERY_MS = 60_000;

export function extractBearer(header: string | undefined | null): string {
  if (header === undefined || header === null || header.trim() === "") {
    throw new ApiError(401, "unauthorized", "Authentication required: send Authorization: Bearer <API key or access token>.");
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) {
    throw new ApiError(401, "invalid_token", "The Authorization header is malformed; expected: Bearer <token>.");
  }
  return match[1];
}

/**
 * The audiences that name Crew (RFC 8707): `{base}`, `{base}/`, `{base}/mcp` and `{base}/mcp/` (the
 * last is the resource of a client configured with the trailing slash, which `/mcp/` serves too).
 */
export function isCrewResource(config: Config, resource: string): boolean {
  const base = config.baseUrl;
  if (resource === base || resource === `${base}/` || resource === `${base}/mcp` || resource === `${base}/mcp/`) return true;
  // The read-only and toolset endpoints (lib/mcp-paths.ts) are the same audience.
  return resource.startsWith(`${base}/mcp/`) && isMcpViewPath(resource.slice(base.length));
}

export async function authenticateBearer(db: Db, config: Config, header: string | undefined | null, now: number): Promise<Principal> {
  const token = extractBearer(header);
  const hash = sha256Hex(token);
  if (isApiKey(token)) {
    const owner = await findActiveKeyOwner(db, hash);
    if (!owner) throw new ApiError(401, "invalid_token", "The API key is unknown or revoked.");
    if (owner.lastUsedAt === null || now - owner.lastUsedAt >= TOUCH_EVERY_MS) await touchApiKey(db, hash, now);
    return principalFor(owner.userId, owner, { type: "api_key", id: hash, scopes: owner.scopes });
  }
  const owner = await findActiveAccessToken(db, hash, now);
  if (!owner || !isCrewResource(config, owner.resource)) {
    throw new ApiError(401, "invalid_token", "The access token is unknown, expired or revoked.");
  }
  // A connected application's "last used" follows its use, like an API key's (at most once a minute).
  if (owner.grantLastUsedAt === null || now - owner.grantLastUsedAt >= TOUCH_EVERY_MS) await touchGrant(db, owner.grantId, now);
  return principalFor(owner.userId, owner, {
    type: "oauth",
    id: hash,
    grantId: owner.grantId,
    clientId: owner.clientId,
    scopes: owner.scopes,
  });
}

/**
 * Whether a credential still admits its principal (a key not revoked; an access token not revoked
 * nor expired, its grant not revoked): what a long-lived request, such as an MCP subscription
 * stream, asks again while it stays open. Sessions and the CLI are not bearer credentials.
 */
export async function bearerStillActive(db: Db, credential: Credential, now: number): Promise<boolean> {
  if (credential.type === "api_key") return (await findActiveKeyOwner(db, credential.id)) !== null;
  if (credential.type === "oauth") return (await findActiveAccessToken(db, credential.id, now)) !== null;
  return true;
}
