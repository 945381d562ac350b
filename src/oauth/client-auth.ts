/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3). A confidential
 * client may use Basic or post, whichever it registered — claude.ai posts and Codex uses Basic
 * regardless (src/docs/notes/oauth.md#what-real-clients-do). A public client identifies itself by client_id; a secret it sends
 * anyway is ignored. Unknown clients get invalid_client, on which clients re-register.
 */
import { sha256Hex, timingSafeEqual } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { findClient, type OAuthClient } from "../store/oauth/clients.ts";
import { isClientIdDocumentUrl, publicDocumentClient } from "./client-id-document.ts";
import { invalidRequest, OAuthError } from "./errors.ts";
import { single } from "./form.ts";

interface Presented {
  clientId: string;
  secret: string | undefined;
  basic: boolean;
}

const BASIC = /^Basic +([A-Za-z0-9+/]+=*) *$/i;

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function decodeFormComponent(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}

function parseBasic(header: string): { clientId: string; secret: string } | null {
  const match = BASIC.exec(header);
  if (!match?.[1]) return null;
  try {
    const decoded = atob(match[1]);
    const colon = decoded.indexOf(":");
    if (colon < 0) return null;
    return { clientId: decodeFormComponent(decoded.slice(0, colon)), secret: decodeFormComponent(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

function invalidClient(basic: boolean, detail: string): OAuthError {
  // RFC 6749 §5.2: 401 with a challenge matching the scheme the client used.
  return new OAuthError(
    401,
    "invalid_client",
    "Client authentication failed.",
    detail,
    basic ? { "WWW-Authenticate": 'Basic realm="crew"' } : {},
  );
}

function presented(authorization: string | undefined, form: URLSearchParams): Presented | null {
  const formId = single(form, "client_id");
  const formSecret = single(form, "client_secret");
  if (authorization && /^basic /i.test(authorization.trim())) {
    const basic = parseBasic(authorization.trim());
    if (!basic) throw invalidClient(true, "malformed Basic header");
    if (formId !== undefined && formId !== basic.clientId) throw invalidRequest("client_id differs between Basic and body");
    return { clientId: basic.clientId, secret: basic.secret, basic: true };
  }
  return formId === undefined ? null : { clientId: formId, secret: formSecret, basic: false };
}

/** The authenticated client, or null when the request identifies none (allowed only where `optional`). */
export async function authenticateClient(
  db: Db,
  authorization: string | undefined,
  form: URLSearchParams,
  optional = false,
): Promise<OAuthClient | null> {
  const who = presented(authorization, form);
  if (!who) {
    if (optional) return null;
    throw invalidClient(false, "no client_id");
  }
  const client = isClientIdDocumentUrl(who.clientId) ? publicDocumentClient(who.clientId, 0) : await findClient(db, who.clientId);
  if (!client) throw invalidClient(who.basic, `unknown client ${who.clientId}`);
  if (client.secretHash !== null) {
    if (who.secret === undefined || !timingSafeEqual(sha256Hex(who.secret), client.secretHash)) {
      throw invalidClient(who.basic, `bad or missing secret for ${client.id}`);
    }
  }
  return client;
}
