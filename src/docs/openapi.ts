/**
 * GET /openapi.json: OpenAPI 3.1 generated from the operation registry (plus the few routes listed
 * in endpoints.ts), so the document cannot drift from the schemas the server validates with.
 */

import type { OAUTH_SCOPES } from "../domain.ts";
import { API_VERSION } from "../http/middleware.ts";
import type { Operation } from "../operations/registry.ts";
import { accessNotes, oauthScopesSatisfying } from "./access-notes.ts";
import { documentedEndpoints, type Endpoint } from "./endpoints.ts";
import { codesForStatus, ERROR_CODES } from "./error-codes.ts";
import type { JsonSchema } from "./json-schema.ts";
import { overview } from "./overview.ts";
import { webhookDocs } from "./webhook-events.ts";

export type OpenApiDocument = Record<string, any> & { paths: Record<string, Record<string, any>> };

export interface DocsSettings {
  baseUrl: string;
  rateLimitPerHour: number;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  "X-Request-Id": {
    description: "The request's id (yours when you sent a valid one, else generated); quote it when reporting a problem.",
    schema: { type: "string" },
  },
  "API-Version": { description: "The version of the /api/mcp interface.", schema: { type: "string", const: API_VERSION } },
  "X-RateLimit-Limit": {
    description: "Requests allowed per hour for this user (all keys and tokens together).",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current hourly window.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "When the window resets, Unix seconds.", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  "WWW-Authenticate": {
    description:
      'RFC 6750 challenge: `Bearer realm="crew", resource_metadata="…"`, with `error`, `error_description` (invalid_token) or `scope` (insufficient_scope).',
    schema: { type: "string" },
  },
  Allow: { description: "The methods the path accepts.", schema: { type: "string" } },
  "Set-Cookie": { description: "The `crew_session` cookie (HttpOnly, SameSite=Lax, Path=/).", schema: { type: "string" } },
};

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request",
  401: "No credential, or an invalid one",
  403: "Plan or scope does not allow it",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type",
  429: "Rate limited",
  500: "Internal error",
};

function componentSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {
    FieldIssue: {
      type: "object",
      properties: {
        path: { type: "string", description: "The offending field, e.g. `actions[3].priority`; `` for the body itself." },
        message: { type: "string" },
      },
      required: ["path", "message"],
      additionalProperties: false,
    },
    ErrorEnvelope: {
      type: "object",
      description: "Every error answer of the REST API. `docs_url` explains the code and its fix.",
      properties: {
        error: { type: "string", enum: ERROR_CODES.map((e) => e.code) },
        message: { type: "string", description: "What went wrong, for people." },
        request_id: { type: "string", description: "Also in the X-Request-Id header." },
        docs_url: { type: "string", format: "uri", description: "`{base}/docs/errors#<error>`." },
        auth_url: { type: "string", format: "uri", description: "On 401/403: the OAuth authorization server metadata." },
        required_scope: { type: "string", description: "On insufficient_scope: the narrowest scope that would pass." },
        issues: { type: "array", items: ref("schemas", "FieldIssue"), description: "On invalid_request: every offending field." },
      },
      required: ["error", "message", "request_id", "docs_url"],
      additionalProperties: false,
    },
  };
  for (const status of Object.keys(STATUS_TEXT).map(Number)) {
    schemas[`Error${status}`] = {
      allOf: [
        ref("schemas", "ErrorEnvelope"),
        {
          type: "object",
          properties: { error: { type: "string", enum: codesForStatus(status) } },
          ...(status === 401 || status === 403 ? { required: ["auth_url"] } : status === 400 ? { required: ["issues"] } : {}),
        },
      ],
    };
  }
  return schemas;
}

/** Component name of a header in its required or optional variant. */
const headerRef = (name: string, required: boolean) => ref("headers", `${name.replace(/-/g, "")}${required ? "" : "Optional"}`);

function headersFor(e: Endpoint, status: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (name: string, required: boolean) => {
    out[name] = headerRef(name, required);
  };
  put("X-Request-Id", true);
  if (e.path.startsWith("/api/mcp/")) put("API-Version", true);
  if (e.auth === "bearer" && status !== 401) {
    // Set once the credential is known: always on these statuses; a 413/415/500 may come before.
    const sure = status < 300 || [400, 403, 404, 429].includes(status);
    for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) put(name, sure);
  } else if (status === 429) {
    for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) put(name, false);
  }
  if (status === 429) put("Retry-After", e.auth === "bearer");
  if (status === 401) put("WWW-Authenticate", true);
  if (status === 403) put("WWW-Authenticate", false);
  if (status === 405) put("Allow", true);
  if (status < 300 && e.ok.setsCookie) put("Set-Cookie", true);
  return out;
}

const json = (schema: unknown) => ({ "application/json": { schema } });

function securityOf(e: Endpoint): Record<string, string[]>[] {
  if (e.auth === "none") return [];
  if (e.auth === "session") return [{ sessionCookie: [] }];
  if (!e.access) return [{ apiKey: [] }, { oauth2: [] }];
  return [...e.access.keyScopes.map((s) => ({ apiKey: [s] })), ...oauthScopesSatisfying(e.access.oauthScope).map((s) => ({ oauth2: [s] }))];
}

function parameters(e: Endpoint): unknown[] {
  const list = (schema: JsonSchema | undefined, where: "path" | "query") =>
    Object.entries(schema?.properties ?? {}).map(([name, s]) => ({
      name,
      in: where,
      required: where === "path" || (schema?.required ?? []).includes(name),
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      schema: s,
    }));
  return [...list(e.pathParams, "path"), ...list(e.query, "query")];
}

function operationObject(e: Endpoint): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [e.ok.status]: { description: e.ok.description, headers: headersFor(e, e.ok.status), content: json(e.ok.schema) },
  };
  for (const alt of e.alternatives ?? []) {
    responses[alt.status] = { description: alt.description, headers: headersFor(e, alt.status), content: json(alt.schema) };
  }
  for (const status of e.errors) {
    responses[status] = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${codesForStatus(status).join(" or ")}.`,
      headers: headersFor(e, status),
      content: json(ref("schemas", `Error${status}`)),
    };
  }
  const params = parameters(e);
  return {
    operationId: e.id,
    summary: e.summary,
    description: [e.description, ...accessNotes(e)].join("\n\n"),
    tags: e.tags,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(e.body ? { requestBody: { required: true, content: json(e.body) } } : {}),
    responses,
    security: securityOf(e),
    "x-crew-access": {
      auth: e.auth,
      ...(e.access ? { tier: e.access.tier, keyScopes: e.access.keyScopes, oauthScope: e.access.oauthScope } : {}),
      ...(e.mcp ? { mcpTool: e.mcp.name, mcpKeyScopes: e.mcp.access.keyScopes, mcpOauthScope: e.mcp.access.oauthScope } : {}),
    },
  };
}

export function buildOpenApi(settings: DocsSettings, ops: Operation[]): OpenApiDocument {
  const { baseUrl } = settings;
  const endpoints = documentedEndpoints(ops);
  const paths: OpenApiDocument["paths"] = {};
  for (const e of endpoints) {
    paths[e.path] ??= {};
    (paths[e.path] as Record<string, unknown>)[e.method.toLowerCase()] = operationObject(e);
  }
  const tags = [...new Set(endpoints.flatMap((e) => e.tags))].map((name) => ({ name }));
  return withoutUnusedComponents({
    openapi: "3.1.0",
    info: {
      title: "Crew API",
      version: API_VERSION,
      summary: "Stored intelligence of a crew of 17 AI agents, and the action queue, over REST.",
      description: overview(settings, endpoints),
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: baseUrl }],
    tags,
    paths,
    webhooks: webhookDocs(),
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "crew_…",
          description:
            "An API key (`crew_` followed by random base32 characters), created by a signed-in user at `POST /api/mcp/keys` or in the dashboard, with scopes among admin, read, briefing, agents (capped by the plan). Requirement scopes listed here are alternatives: any one passes.",
        },
        oauth2: {
          type: "oauth2",
          description:
            "OAuth 2.1 authorization code flow with PKCE (S256 required). Clients register dynamically at `/oauth/register` (RFC 7591); metadata at `/.well-known/oauth-authorization-server`. Access tokens live 1 hour; refresh tokens 30 days, rotated on use. crew:write includes crew:read; crew:admin grants what crew:write grants.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              refreshUrl: `${baseUrl}/oauth/token`,
              scopes: {
                "crew:read": "Read agent status, standup, briefing, suggestions, company profile.",
                "crew:write": "Everything crew:read allows, plus the action queue, contacts, handoffs, the feed, agent runs, webhooks.",
                "crew:admin": "Grants exactly what crew:write grants.",
              } satisfies Record<(typeof OAUTH_SCOPES)[number], string>,
            },
          },
        },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "crew_session",
          description:
            "The browser session set by signing in (`/sign-in` or `POST /api/auth/sign-in`). Not accepted in place of a Bearer credential.",
        },
      },
      headers: Object.fromEntries(
        Object.entries(HEADERS).flatMap(([name, h]) => [
          [name.replace(/-/g, ""), { ...h, required: true }],
          [`${name.replace(/-/g, "")}Optional`, { ...h, required: false }],
        ]),
      ),
      schemas: componentSchemas(),
    },
  });
}

/** Every `#/components/{kind}/{name}` a part of the document refers to. */
function refsIn(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/")) found.add(value.slice("#/components/".length));
      else refsIn(value, found);
    }
  }
  return found;
}

/**
 * Keeps only the components the paths and webhooks use, directly or through other components, so
 * the document lints clean (Redocly's `no-unused-components`): a header's optional variant or an
 * error schema no endpoint answers with is not described. Security schemes are named by the
 * requirements, not referenced, and stay.
 */
function withoutUnusedComponents(doc: OpenApiDocument): OpenApiDocument {
  const used = refsIn([doc.paths, doc.webhooks], new Set());
  const pending = [...used];
  while (pending.length > 0) {
    const [kind, name] = (pending.pop() as string).split("/");
    for (const next of refsIn(doc.components[kind as string]?.[name as string], new Set())) {
      if (!used.has(next)) {
        used.add(next);
        pending.push(next);
      }
    }
  }
  for (const kind of ["headers", "schemas", "responses"]) {
    const group = doc.components[kind] as Record<string, unknown> | undefined;
    for (const name of Object.keys(group ?? {})) if (!used.has(`${kind}/${name}`)) delete group?.[name];
  }
  return doc;
}
