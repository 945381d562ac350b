/**
 * Checking an authorization request (RFC 6749 §4.1.1, OAuth 2.1 §4.1.1, RFC 8707), shared by the
 * consent page (GET) and the consent form (POST, which re-checks everything it is sent).
 *
 * Order matters (RFC 6749 §4.1.2.1): until client_id and redirect_uri are known good, errors go to
 * an error page and never to a redirect — an attacker must not be able to bounce the browser to a
 * URI of their choosing. After that, errors go back to the client as a redirect with state and iss
 * only when a person once approved that client's redirect URI on the consent page: anyone can
 * register a client, so an unapproved URI would make Crew an open redirector for a malformed
 * request (RFC 9700 §4.11.2). Those errors are an error page too.
 */

import type { Config } from "../config.ts";
import type { OAuthScope } from "../domain.ts";
import { matchRedirectUri, redirectHost, redirectUriProblem } from "../lib/redirect-uri.ts";
import type { Db } from "../store/db.ts";
import { findClient, type OAuthClient } from "../store/oauth/clients.ts";
import { approvedRedirectUris } from "../store/oauth/grants.ts";
import { ClientDocumentProblem } from "./client-id-document.ts";
import { isValidS256Challenge } from "./pkce.ts";
import { resolveResource } from "./resource.ts";
import { parseScopeParam } from "./scopes.ts";

/** The parameters the consent form carries back, so the POST can check them again. */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  /** Whether the request named redirect_uri (else the client's only registered one is used). */
  redirectUriSent: boolean;
  state: string | undefined;
  codeChallenge: string;
  scopes: OAuthScope[];
  /** Whether the request named a scope: without one it gets crew:read, and the consent page says so (src/docs/notes/oauth.md). */
  scopeSent: boolean;
  resource: string;
  /** The request's own parameters, for the consent form and the sign-in round trip. */
  params: URLSearchParams;
}

export type AuthorizeCheck =
  | { kind: "ok"; request: AuthorizeRequest }
  | { kind: "page"; title: string; message: string }
  | { kind: "redirect"; location: string };

/** The redirect back to the client (RFC 6749 §4.1.2) with `iss` (RFC 9207). */
export function clientRedirect(config: Config, redirectUri: string, values: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set("iss", config.baseUrl);
  return url.href;
}

/** Short fixed descriptions per error: what exactly was wrong stays out of the URL. */
const DESCRIPTIONS: Record<string, string> = {
  invalid_request: "The authorization request is missing a parameter or malformed.",
  unsupported_response_type: "Only response_type=code is supported.",
  pkce_required: "PKCE with code_challenge_method=S256 is required.",
  invalid_scope: "The requested scope is unknown.",
  invalid_target: "The resource is not served by this server.",
};

function pageError(message: string): AuthorizeCheck {
  return { kind: "page", title: "This sign-in link does not work", message };
}

function only(params: URLSearchParams, name: string): string | undefined | null {
  const values = params.getAll(name);
  if (values.length > 1) return null;
  return values[0] === "" ? undefined : values[0];
}

/** Finds a client by id; throws ClientDocumentProblem when a metadata document cannot be used. */
export type ClientLookup = (clientId: string) => Promise<OAuthClient | null>;

export async function checkAuthorizeRequest(
  db: Db,
  config: Config,
  input: URLSearchParams,
  lookup: ClientLookup = (id) => findClient(db, id),
): Promise<AuthorizeCheck> {
  const params = new URLSearchParams();
  for (const name of AUTHORIZE_PARAMS) for (const value of input.getAll(name)) params.append(name, value);

  const clientId = only(params, "client_id");
  if (clientId === null)
    return pageError("The request names more than one application (client_id). Start the connection again from your application.");
  if (clientId === undefined)
    return pageError(
      "The request does not say which application is asking (client_id is missing). Start the connection again from your application.",
    );
  let client: OAuthClient | null;
  try {
    client = await lookup(clientId);
  } catch (error) {
    if (error instanceof ClientDocumentProblem) return pageError(error.message);
    throw error;
  }
  if (!client) {
    return pageError(
      "The application asking is not registered with Crew (registrations not used within a day are removed). Start the connection again from your application; it will register anew.",
    );
  }

  const presented = only(params, "redirect_uri");
  if (presented === null) return pageError("The request carries more than one redirect_uri.");
  let redirectUri: string;
  if (presented === undefined) {
    // OAuth 2.1 §4.1.1: optional only when the client registered exactly one.
    const [sole, ...rest] = client.metadata.redirect_uris;
    if (!sole || rest.length > 0) return pageError("The request does not say where to return (redirect_uri is missing).");
    redirectUri = sole;
  } else {
    const matched = redirectUriProblem(presented) === null ? matchRedirectUri(client.metadata.redirect_uris, presented) : null;
    if (!matched)
      return pageError(
        "The address the application wants to return to (redirect_uri) is not one it registered, so Crew will not send you there.",
      );
    redirectUri = presented;
  }

  const state = only(params, "state") ?? undefined;
  const approved = matchRedirectUri(await approvedRedirectUris(db, client.id), redirectUri) !== null;
  const fail = (error: string, code = error): AuthorizeCheck =>
    approved
      ? { kind: "redirect", location: clientRedirect(config, redirectUri, { error, error_description: DESCRIPTIONS[code], state }) }
      : pageError(
          `${DESCRIPTIONS[code]} Crew does not send you on to ${redirectHost(redirectUri)}: no one has approved that address here yet. Start the connection again from your application, or ask its maker.`,
        );
  for (const name of AUTHORIZE_PARAMS) if (name !== "resource" && params.getAll(name).length > 1) return fail("invalid_request");

  const responseType = only(params, "response_type");
  if (responseType === undefined) return fail("invalid_request");
  if (responseType !== "code") return fail("unsupported_response_type");

  const challenge = only(params, "code_challenge");
  // OAuth 2.1 §4.1.1: S256 only; an absent method means plain, which is refused too.
  if (!challenge || only(params, "code_challenge_method") !== "S256") return fail("invalid_request", "pkce_required");
  if (!isValidS256Challenge(challenge)) return fail("invalid_request");

  const scope = parseScopeParam(only(params, "scope"));
  if (!scope.ok) return fail("invalid_scope");

  const resource = resolveResource(
    config,
    params.getAll("resource").filter((r) => r !== ""),
  );
  if (resource === null) return fail("invalid_target");

  return {
    kind: "ok",
    request: {
      client,
      redirectUri,
      redirectUriSent: presented !== undefined,
      state,
      codeChallenge: challenge,
      scopes: scope.scopes,
      scopeSent: (only(params, "scope") ?? "").trim() !== "",
      resource,
      params,
    },
  };
}
