/**
 * The operation registry: every operation is defined once — input and output schemas, what it
 * needs in each projection, one handler — and REST routes, MCP tools and the documents are
 * derived from it (ARCHITECTURE.md).
 */
import type * as v from "valibot";
import type { Access } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Principal } from "../domain.ts";
import type { Clock } from "../lib/clock.ts";
import type { Events } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import type { OutboundPolicy } from "../lib/outbound-policy.ts";
import type { Db } from "../store/db.ts";

export type AnySchema = v.GenericSchema;

/** What a handler may use. Built per request by the projection that calls it. */
export interface OperationContext {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  events: Events;
  outbound: OutboundPolicy;
  principal: Principal;
  /** Which door called: stored as an action's `source` (rest → api, mcp, web, cli). */
  via: "rest" | "mcp" | "web" | "cli";
  requestId: string;
  /** Aborted when the caller gave up on long work before it began (a cancelled MCP task). */
  signal?: AbortSignal;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface RestProjection {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI-style path, e.g. `/api/mcp/actions/{id}`. Path parameters are input fields. */
  path: string;
  /** Bearer (API key or OAuth token, quota-counted; the default) or the browser session (no quota, CSRF-checked). */
  auth?: "bearer" | "session";
  /** What a bearer credential needs; session endpoints check what they need in the handler. */
  access: Access | null;
  /** Where the non-path input comes from. */
  from: "query" | "body" | "none";
  tags: string[];
  /** Error statuses beyond the ones every operation may answer (400, 401, 403, 404, 429, 500), e.g. 409. */
  errors?: number[];
}

export interface McpProjection {
  name: string;
  title: string;
  access: Access;
  annotations: ToolAnnotations;
  /**
   * The input schema the tool advertises, when the operation's own input is not a plain object
   * (MCP requires an object; a top-level union is refused by some clients). Arguments are still
   * judged by the operation's input (`inputSchemaFor`), so this only describes them.
   */
  input?: AnySchema;
  /** `resource_link`s a result carries to the records it created or names (src/docs/notes/mcp-resources-and-prompts.md). */
  links?: (output: Record<string, unknown>) => { uri: string; name: string }[];
}

/**
 * MCP resource view of a read operation (src/docs/notes/mcp-resources-and-prompts.md). `uri` is a fixed URI (`crew://briefing`) or an
 * RFC 6570 level-1 template (`crew://actions/{id}`) whose variables become input fields; reading it
 * runs the operation's handler with that input, so a read equals the REST answer.
 */
export interface ResourceProjection {
  uri: string;
  name: string;
  title: string;
  access: Access;
  /** Input fixed by the resource beside the template's variables (e.g. a page size). */
  input?: Record<string, unknown>;
  /** Values a template variable can take, for completion/complete; a picklist input field gives them by itself. */
  values?: Record<string, readonly string[]>;
}

export interface Operation<I extends AnySchema = AnySchema, O extends AnySchema = AnySchema> {
  /** camelCase operationId. */
  id: string;
  summary: string;
  /** Written for people and models alike: what it returns and when to use it. */
  description: string;
  input: I;
  /** When the input has alternative forms, the schema that judges this raw value (clearer issues than a union's). */
  inputFor?: (raw: unknown) => AnySchema;
  output: O;
  /**
   * `"owner"`: the operation manages the organization (src/docs/notes/web-app.md), so only its owners may run it,
   * through every projection, whatever the credential's scopes or the plan. Checked by `invoke`
   * before anything else.
   */
  role?: "owner";
  rest?: RestProjection;
  mcp?: McpProjection;
  resource?: ResourceProjection;
  handler: (ctx: OperationContext, input: v.InferOutput<I>) => Promise<v.InferOutput<O>>;
}

/** Identity function that keeps the input/output types tied to the handler. */
export function defineOperation<I extends AnySchema, O extends AnySchema>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

export function inputSchemaFor(op: Operation, raw: unknown): AnySchema {
  return op.inputFor ? op.inputFor(raw) : op.input;
}
