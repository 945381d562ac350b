/**
 * Dynamic client registration (RFC 7591). Clients re-register on every fresh connection, often
 * from shared addresses (src/docs/notes/oauth.md, src/docs/notes/oauth.md#what-real-clients-do), so the per-address limit is generous, and
 * registrations never used for a grant are purged after 24 hours.
 */
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { parseJsonObject, readBodyText } from "../http/body.ts";
import { clientAddress } from "../http/client-address.ts";
import { DAY, HOUR } from "../lib/clock.ts";
import { randomSecret, sha256Hex } from "../lib/random.ts";
import { countRegistrationsSince, insertClient, purgeUnusedClients } from "../store/oauth/clients.ts";
import { validateClientMetadata } from "./client-metadata.ts";
import { OAuthError, oauthJson } from "./errors.ts";

export const REGISTRATIONS_PER_HOUR = 600;
const MAX_BODY = 64 * 1024;

async function readRegistrationBody(request: Request): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBodyText(request, MAX_BODY);
  } catch {
    throw new OAuthError(400, "invalid_client_metadata", "The registration request must be a JSON object.", "body unreadable or too large");
  }
  const parsed = parseJsonObject(text);
  if ("problem" in parsed) {
    const detail = parsed.problem === "not_json" ? "body is not JSON" : "body is not an object";
    throw new OAuthError(400, "invalid_client_metadata", "The registration request must be a JSON object.", detail);
  }
  return parsed.object;
}

export async function register(deps: AppDeps, c: Context<AppEnv>): Promise<Response> {
  const { db, clock } = deps;
  const now = clock.now();
  const address = clientAddress(c, deps.config);
  if ((await countRegistrationsSince(db, address, now - HOUR)) >= REGISTRATIONS_PER_HOUR) {
    throw new OAuthError(429, "rate_limited", "Too many registrations from this address; retry later.", address, {
      "Retry-After": "600",
    });
  }
  // Content-Type is not insisted on: some clients send JSON as text/plain; the body must parse either way.
  const body = await readRegistrationBody(c.req.raw);
  const result = validateClientMetadata(body);
  if (!result.ok) throw new OAuthError(400, result.error, result.description);

  const { metadata } = result;
  const confidential = metadata.token_endpoint_auth_method !== "none";
  const clientId = `crewcl_${randomSecret(16)}`;
  const secret = confidential ? `crewcs_${randomSecret(32)}` : null;
  await purgeUnusedClients(db, now - DAY);
  await insertClient(db, { id: clientId, secretHash: secret ? sha256Hex(secret) : null, metadata, registeredFrom: address }, now);

  return oauthJson(
    {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...metadata,
    },
    201,
  );
}
