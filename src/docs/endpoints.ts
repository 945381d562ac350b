/**
 * What the reference documents, as one list of endpoints: every operation of the registry that
 * has a REST projection, plus the few JSON routes written outside the registry (EXTRA_ENDPOINTS).
 *
 * "REST endpoint" means: every route under /api/ (whatever serves it), plus /healthz and /readyz.
 * Not included, on purpose: /mcp (JSON-RPC; described by /.well-known/mcp.json and llms.txt), the
 * OAuth protocol endpoints /oauth/*, /authorize, /token, /register and /.well-known/* (standard
 * protocols, described by their RFC 8414 / RFC 9728 metadata documents), the HTML pages, and these
 * documents themselves. test/docs/openapi.test.ts holds the app's routes to exactly this list.
 */
import * as v from "valibot";
import type { Access } from "../auth/access.ts";
import { writeAccess } from "../auth/access.ts";
import { PLANS } from "../domain.ts";
import { triggerAgentOp } from "../operations/agent-trigger.ts";
import type { McpProjection, Operation } from "../operations/registry.ts";
import { type JsonSchema, jsonSchemaOf, pathParamsOf, withoutProperties } from "./json-schema.ts";

export interface Endpoint {
  id: string;
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** bearer: API key or OAuth token, quota-counted; session: the browser's crew_session cookie; none: public. */
  auth: "bearer" | "session" | "none";
  access: Access | null;
  /** Only the organization's owners may call it (the operation's `role`), on top of `access`. */
  role?: "owner";
  mcp?: McpProjection;
  /** Object schemas: the path parameters, the query parameters, the JSON body. */
  pathParams?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  ok: { status: number; description: string; schema: JsonSchema; setsCookie?: boolean };
  /** Other non-error answers, e.g. 503 from /readyz. */
  alternatives?: { status: number; description: string; schema: JsonSchema }[];
  /** Error statuses it may answer with the error envelope. */
  errors: number[];
}

const pick = (schema: JsonSchema, names: string[]): JsonSchema => ({
  type: "object",
  properties: Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([n]) => names.includes(n))),
  required: (schema.required ?? []).filter((n) => names.includes(n)),
});

export function endpointOf(op: Operation): Endpoint | null {
  const rest = op.rest;
  if (!rest) return null;
  const input = jsonSchemaOf(op.input, "input");
  const inPath = pathParamsOf(rest.path);
  const auth = rest.auth ?? "bearer";
  const body = rest.from === "body";
  return {
    id: op.id,
    method: rest.method,
    path: rest.path,
    summary: op.summary,
    description: op.description,
    tags: rest.tags,
    auth,
    access: rest.access,
    ...(op.role ? { role: op.role } : {}),
    ...(op.mcp ? { mcp: op.mcp } : {}),
    ...(inPath.length > 0 ? { pathParams: pick(input, inPath) } : {}),
    ...(rest.from === "query" ? { query: withoutProperties(input, inPath) } : {}),
    ...(body ? { body: withoutProperties(input, inPath) } : {}),
    ok: { status: 200, description: "Success.", schema: jsonSchemaOf(op.output, "output") },
    // Every operation validates its input (unknown query parameters included) and may name a missing record.
    errors: [400, 401, 403, 404, ...(rest.errors ?? []), ...(body ? [413, 415] : []), 429, 500],
  };
}

const Ok = v.object({ ok: v.literal(true) });
const SessionUser = v.object({
  user: v.object({ id: v.string(), email: v.string(), name: v.string(), plan: v.picklist(PLANS) }),
});

/** JSON routes served outside the registry that count as REST endpoints (see the header). */
export const EXTRA_ENDPOINTS: Endpoint[] = [
  {
    id: "healthz",
    method: "GET",
    path: "/healthz",
    summary: "Process health",
    description: "200 while the process is up. Not protected, not quota-counted.",
    tags: ["Health"],
    auth: "none",
    access: null,
    ok: { status: 200, description: "The process is up.", schema: jsonSchemaOf(Ok, "output") },
    errors: [500],
  },
  {
    id: "readyz",
    method: "GET",
    path: "/readyz",
    summary: "Database readiness",
    description: "200 when the database answers, 503 otherwise. Not protected, not quota-counted.",
    tags: ["Health"],
    auth: "none",
    access: null,
    ok: { status: 200, description: "The database answers.", schema: jsonSchemaOf(Ok, "output") },
    alternatives: [
      { status: 503, description: "The database does not answer.", schema: jsonSchemaOf(v.object({ ok: v.literal(false) }), "output") },
    ],
    errors: [500],
  },
  {
    id: "signIn",
    method: "POST",
    path: "/api/auth/sign-in",
    summary: "Sign in",
    description:
      "JSON twin of the sign-in form: checks email and password and sets the `crew_session` cookie (HttpOnly, SameSite=Lax, 30 days, sliding). A wrong email and a wrong password get the same 401; after 10 failures for one email within 15 minutes, 429 until the window passes.",
    tags: ["Session"],
    auth: "none",
    access: null,
    body: jsonSchemaOf(v.strictObject({ email: v.string(), password: v.string() }), "input"),
    ok: {
      status: 200,
      description: "Signed in; the session cookie is set.",
      schema: jsonSchemaOf(SessionUser, "output"),
      setsCookie: true,
    },
    errors: [400, 401, 403, 413, 415, 429, 500],
  },
  {
    id: "signOut",
    method: "POST",
    path: "/api/auth/sign-out",
    summary: "Sign out",
    description: "Ends the session of the `crew_session` cookie and clears the cookie.",
    tags: ["Session"],
    auth: "session",
    access: null,
    ok: { status: 200, description: "Signed out.", schema: jsonSchemaOf(Ok, "output"), setsCookie: true },
    errors: [401, 403, 500],
  },
  {
    id: "getSession",
    method: "GET",
    path: "/api/auth/session",
    summary: "Current session",
    description: "The signed-in user of the `crew_session` cookie, or 401.",
    tags: ["Session"],
    auth: "session",
    access: null,
    ok: { status: 200, description: "The signed-in user.", schema: jsonSchemaOf(SessionUser, "output") },
    errors: [401, 500],
  },
  {
    // The body is the event itself, not an input object: served by src/rest/agent-trigger.ts, run through triggerAgent.
    id: "postAgentTrigger",
    method: "POST",
    path: "/api/agents/{id}/trigger",
    summary: triggerAgentOp.summary,
    description: `${triggerAgentOp.description}\n\nThe request body is the payload itself (any JSON, at most 64 KiB: 413 beyond). Instead of an admin key or the session, a tool may sign the request the Standard Webhooks way with the agent's trigger secret (POST /api/agents/{id}/trigger-secret): \`webhook-id\`, \`webhook-timestamp\` (Unix seconds, within 5 minutes) and \`webhook-signature\` (\`v1,<base64 HMAC-SHA256 of id.timestamp.body>\`); a signature that does not match is 401 \`invalid_signature\`.`,
    tags: ["Agents runtime"],
    auth: "bearer",
    access: writeAccess(),
    role: "owner",
    ...(triggerAgentOp.mcp ? { mcp: triggerAgentOp.mcp } : {}),
    pathParams: jsonSchemaOf(v.object({ id: v.pipe(v.string(), v.description("The agent's id, e.g. sales.")) }), "input"),
    body: { description: "The event: any JSON value." },
    ok: { status: 202, description: "The run has started.", schema: jsonSchemaOf(triggerAgentOp.output, "output") },
    errors: [400, 401, 403, 404, 409, 413, 415, 429, 500],
  },
];

/** The documented endpoints, registry first (in its order), then the extras. */
export function documentedEndpoints(ops: Operation[]): Endpoint[] {
  return [...ops.flatMap((op) => endpointOf(op) ?? []), ...EXTRA_ENDPOINTS];
}
