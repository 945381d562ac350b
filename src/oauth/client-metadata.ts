/**
 * Dynamic client registration metadata (RFC 7591 §2): validates what a client sends and builds
 * what is stored and echoed. Fields Crew does not know are dropped; a `null` is treated as absent,
 * so the echo never carries a null field. Pure, no I/O.
 */
import { AUTH_METHODS, type AuthMethod, type ClientMetadata, GRANT_TYPES, scopeString } from "../domain.ts";
import { redirectUriProblem } from "../lib/redirect-uri.ts";
import { parseScopeParam } from "./scopes.ts";

export type MetadataResult =
  | { ok: true; metadata: ClientMetadata }
  | { ok: false; error: "invalid_redirect_uri" | "invalid_client_metadata"; description: string };

const fail = (error: "invalid_redirect_uri" | "invalid_client_metadata", description: string): MetadataResult => ({
  ok: false,
  error,
  description,
});

const MAX_TEXT = 200;
const MAX_URI = 2000;
const MAX_REDIRECT_URIS = 20;

function optionalText(body: Record<string, unknown>, name: string, max = MAX_TEXT): string | undefined | Error {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.length > max) return new Error(`${name} must be a string of at most ${max} characters`);
  return value.trim() === "" ? undefined : value;
}

function optionalWebUrl(body: Record<string, unknown>, name: string): string | undefined | Error {
  const text = optionalText(body, name, MAX_URI);
  if (text === undefined || text instanceof Error) return text;
  try {
    const url = new URL(text);
    if (url.protocol === "https:" || url.protocol === "http:") return text;
  } catch {}
  return new Error(`${name} must be an http(s) URL`);
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : null;
}

export function validateClientMetadata(body: Record<string, unknown>): MetadataResult {
  const uris = stringList(body.redirect_uris);
  if (!uris || uris.length === 0) return fail("invalid_redirect_uri", "redirect_uris must be a non-empty array of strings");
  if (uris.length > MAX_REDIRECT_URIS) return fail("invalid_redirect_uri", `redirect_uris may hold at most ${MAX_REDIRECT_URIS} URIs`);
  for (const [i, uri] of uris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) return fail("invalid_redirect_uri", `redirect_uris[${i}] ${problem}`);
  }

  const method = body.token_endpoint_auth_method ?? "none";
  if (typeof method !== "string" || !(AUTH_METHODS as readonly string[]).includes(method)) {
    return fail("invalid_client_metadata", `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}`);
  }

  // RFC 7591 §3.2.1 lets the server replace requested values: grant and response types Crew does
  // not offer are left out of what is registered (VS Code, for one, adds the device-code grant when
  // metadata does not list grant types), as long as the authorization code flow is among them.
  const grantTypes = body.grant_types ?? null;
  const grants = grantTypes === null ? [...GRANT_TYPES] : stringList(grantTypes);
  if (!grants) return fail("invalid_client_metadata", "grant_types must be an array of strings");
  if (!grants.includes("authorization_code")) return fail("invalid_client_metadata", "grant_types must include authorization_code");

  const responseTypes = body.response_types ?? null;
  const responses = responseTypes === null ? ["code"] : stringList(responseTypes);
  if (!responses?.includes("code")) return fail("invalid_client_metadata", 'response_types must include "code"');

  const metadata: ClientMetadata = {
    redirect_uris: [...new Set(uris)],
    token_endpoint_auth_method: method as AuthMethod,
    grant_types: GRANT_TYPES.filter((g) => grants.includes(g)),
    response_types: ["code"],
  };

  for (const name of ["client_name", "software_id", "software_version"] as const) {
    const value = optionalText(body, name);
    if (value instanceof Error) return fail("invalid_client_metadata", value.message);
    if (value !== undefined) metadata[name] = value;
  }
  for (const name of ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const) {
    const value = optionalWebUrl(body, name);
    if (value instanceof Error) return fail("invalid_client_metadata", value.message);
    if (value !== undefined) metadata[name] = value;
  }

  if (body.scope !== undefined && body.scope !== null) {
    if (typeof body.scope !== "string") return fail("invalid_client_metadata", "scope must be a space-separated string");
    // Clients copy scopes_supported, or add OpenID scopes out of habit: keep the ones Crew knows.
    const known = body.scope.split(/\s+/).filter((w) => parseScopeParam(w, []).ok && w !== "" && w !== "offline_access");
    const parsed = parseScopeParam(known.join(" "), []);
    if (parsed.ok && parsed.scopes.length > 0) metadata.scope = scopeString(parsed.scopes);
  }

  if (body.contacts !== undefined && body.contacts !== null) {
    const contacts = stringList(body.contacts);
    if (!contacts || contacts.length > 10 || contacts.some((c) => c.length > 254)) {
      return fail("invalid_client_metadata", "contacts must be an array of at most 10 strings");
    }
    if (contacts.length > 0) metadata.contacts = contacts;
  }
  return { ok: true, metadata };
}
