/** Middleware every response passes through: request id, API-Version, the error envelope. */
import type { Context, MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/random.ts";
import { renderApiError } from "./errors.ts";

/** A client's X-Request-Id is kept when it is a plain token of sane length; otherwise one is made. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(now: () => number): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header("x-request-id");
    const id = incoming && VALID_REQUEST_ID.test(incoming) ? incoming : newId("req", now());
    c.set("requestId", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}

export const API_VERSION = "1.0.0";

export const apiVersion: MiddlewareHandler<AppEnv> = async function apiVersionMiddleware(c, next) {
  await next();
  c.res.headers.set("API-Version", API_VERSION);
};

/**
 * True when the error is the client's going away mid-request (a body cut short, a reset
 * connection): the request's signal is aborted, or the body stream failed with Node's "aborted".
 */
function clientWentAway(error: unknown, request: Request): boolean {
  if (request.signal?.aborted) return true;
  const e = error as { message?: string; code?: string; cause?: { code?: string } } | null;
  const code = e?.code ?? e?.cause?.code;
  return e?.message === "aborted" || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ECONNABORTED";
}

/** The one place errors become responses: ApiError as is, anything else as a logged 500. */
export function renderError(deps: AppDeps, error: unknown, c: Context<AppEnv>): Response {
  const { config, log } = deps;
  const requestId = c.get("requestId") ?? "unknown";
  if (error instanceof ApiError) return renderApiError(error, requestId, config.baseUrl, c.req.path);
  if (clientWentAway(error, c.req.raw)) {
    // The client's doing, not ours: no error line (the answer most likely reaches nobody).
    log.debug("client closed the request", { request_id: requestId, method: c.req.method, path: c.req.path, error: String(error) });
    return renderApiError(
      new ApiError(400, "invalid_request", "The request ended before its body was complete."),
      requestId,
      config.baseUrl,
      c.req.path,
    );
  }
  log.error("unhandled error", {
    request_id: requestId,
    method: c.req.method,
    path: c.req.path,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return renderApiError(
    new ApiError(500, "internal_error", "Something went wrong on our side; quote the request id if you report it."),
    requestId,
    config.baseUrl,
    c.req.path,
  );
}

export function methodNotAllowed(allowed: string[]): (c: Context<AppEnv>) => never {
  const allow = [...new Set(allowed.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m])))].join(", ");
  return () => {
    throw new ApiError(405, "method_not_allowed", `This endpoint accepts ${allow}.`, { headers: { Allow: allow } });
  };
}
