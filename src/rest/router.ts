/**
 * The REST projection of the operation registry: one route per operation with a `rest` part.
 * Authentication and quota run before (auth/protect.ts); operations/invoke.ts runs plan and
 * scope (403), input (415, 413, 400, read here), then the handler. Known paths answer other methods with 405 and Allow.
 */
import { type Context, Hono } from "hono";
import type * as v from "valibot";
import { sessionPrincipal } from "../auth/session-principal.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { readJsonObject } from "../http/body.ts";
import { methodNotAllowed } from "../http/middleware.ts";
import { invoke } from "../operations/invoke.ts";
import type { Operation } from "../operations/registry.ts";

/** `/api/mcp/actions/{id}` → `/api/mcp/actions/:id`. */
export const toHonoPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

/** The object entries of an input schema, looking through pipes, unions and optionals. */
function entriesOf(schema: v.GenericSchema): Record<string, v.GenericSchema> {
  const s = schema as unknown as { entries?: Record<string, v.GenericSchema>; pipe?: v.GenericSchema[]; options?: v.GenericSchema[] };
  if (s.entries) return s.entries;
  if (s.pipe?.[0]) return entriesOf(s.pipe[0]);
  if (s.options) return Object.assign({}, ...s.options.map(entriesOf));
  return {};
}

function expectsNumber(schema: v.GenericSchema | undefined): boolean {
  let s = schema as unknown as { type?: string; wrapped?: v.GenericSchema; pipe?: v.GenericSchema[] } | undefined;
  while (s) {
    if (s.type === "number") return true;
    s = (s.wrapped ?? (s.pipe ? s.pipe[0] : undefined)) as typeof s;
  }
  return false;
}

/** Query parameters as input: each at most once; numeric fields converted when they look like numbers. */
function queryInput(c: Context<AppEnv>, op: Operation): Record<string, unknown> {
  const entries = entriesOf(op.input);
  const input: Record<string, unknown> = {};
  const repeated: string[] = [];
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) repeated.push(name);
    const value = values[0] ?? "";
    input[name] = expectsNumber(entries[name]) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  if (repeated.length > 0) {
    throw new ApiError(400, "invalid_request", `Query parameters may appear once: ${repeated.join(", ")}.`, {
      issues: repeated.map((path) => ({ path, message: "Given more than once." })),
    });
  }
  return input;
}

async function rawInput(c: Context<AppEnv>, op: Operation): Promise<Record<string, unknown>> {
  const from = op.rest?.from;
  // Unknown query parameters are refused on every endpoint, like unknown body fields.
  const stray = from === "query" ? [] : Object.keys(c.req.queries());
  if (stray.length > 0) {
    throw new ApiError(400, "invalid_request", `This endpoint takes no query parameters: ${stray.join(", ")}.`, {
      issues: stray.map((path) => ({ path, message: "Unknown query parameter." })),
    });
  }
  const input = from === "body" ? await readJsonObject(c.req.raw) : from === "query" ? queryInput(c, op) : {};
  const params = c.req.param() as Record<string, string>;
  const clash = Object.keys(params).filter((name) => name in input);
  if (clash.length > 0) {
    throw new ApiError(400, "invalid_request", `Give ${clash.join(", ")} in the path only.`, {
      issues: clash.map((path) => ({ path, message: "Unknown field: it belongs in the path." })),
    });
  }
  return { ...input, ...params };
}

/** Paths whose operations take the session: the Bearer gate and quota skip them. */
export function sessionPaths(ops: Operation[]): Set<string> {
  return new Set(ops.filter((op) => op.rest?.auth === "session").flatMap((op) => withTrailingSlash(op.rest?.path ?? "")));
}

/**
 * A path and its twin with a trailing slash. The twin is a 404 that names the right path (README
 * "Decisions"): paths are exact, as the OpenAPI document lists them, and a redirect would lose a
 * POST body or the Authorization header in some clients.
 */
const withTrailingSlash = (path: string) => [path, `${path}/`];

export function restRouter(deps: AppDeps, ops: Operation[]): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const methodsByPath = new Map<string, string[]>();
  for (const op of ops) {
    const rest = op.rest;
    if (!rest) continue;
    const path = toHonoPath(rest.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), rest.method]);
    router.on(rest.method, path, async (c) => {
      const principal = rest.auth === "session" ? await sessionPrincipal(deps, c) : c.get("principal");
      const result = await invoke(
        op,
        { ...deps, principal, via: "rest", requestId: c.get("requestId") },
        {
          access: rest.access,
          input: () => rawInput(c, op),
          inputName: rest.from === "query" ? "query" : "request body",
        },
      );
      return c.json(result as object, 200);
    });
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, methodNotAllowed(methods));
    router.all(`${path}/`, (c) => {
      throw new ApiError(404, "not_found", `No such endpoint; did you mean ${c.req.path.replace(/\/+$/, "")} (no trailing slash)?`);
    });
  }
  return router;
}
