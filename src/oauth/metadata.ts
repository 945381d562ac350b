/**
 * Discovery documents. Every URL is built from BASE_URL, never from the request's Host header
 * (a proxy or a DNS-rebinding page could set that).
 */

import type { Config } from "../config.ts";
import { AUTH_METHODS, GRANT_TYPES, OAUTH_SCOPES } from "../domain.ts";

/** RFC 8414. Crew is not an OpenID provider: no ID tokens, no userinfo, no jwks. */
export function authorizationServerMetadata(config: Config) {
  const base = config.baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    code_challenge_methods_supported: ["S256"],
    // An https client_id with a path names a client metadata document (client-id-document.ts),
    // unless the operator turned them off: clients that see the flag never register dynamically.
    ...(config.clientMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
    service_documentation: `${base}/docs`,
    // authorization_response_iss_parameter_supported is deliberately absent (src/docs/notes/oauth.md): `iss` is
    // always sent, but clients that drop it would fail once the flag is advertised.
  };
}

/** RFC 9728, for `{base}` (root document) or `{base}/mcp`. */
export function protectedResourceMetadata(config: Config, resource: string) {
  return {
    resource,
    authorization_servers: [config.baseUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Crew",
    resource_documentation: `${config.baseUrl}/docs`,
  };
}
