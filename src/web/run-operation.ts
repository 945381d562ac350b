/**
 * The one way a page calls an operation (src/docs/notes/architecture.md#one-registry-of-operations): the registry's `invoke`, as REST and MCP do
 * (same validation and handler), with the signed-in person as principal and `via: "web"` (stored
 * as `source: "web"`). Plans cap the API, not the web app, so no access is asked for here; owner
 * pages check `isOwner` first, and owner-only operations check it themselves.
 */
import type { Context } from "hono";
import type * as v from "valibot";
import { sessionPrincipalOf, type ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { invoke } from "../operations/invoke.ts";
import type { AnySchema, Operation } from "../operations/registry.ts";
import { parseOrThrow } from "../operations/validate.ts";

export function runOperation<I extends AnySchema, O extends AnySchema>(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  op: Operation<I, O>,
  raw: Record<string, unknown>,
): Promise<v.InferOutput<O>> {
  return runOperationAs(deps, c, sessionPrincipalOf(found), op, raw);
}

/** runOperation for a principal that is not a session's: the user of a link from a mail (src/web/mail-links.ts). */
export async function runOperationAs<I extends AnySchema, O extends AnySchema>(
  deps: AppDeps,
  c: Context<AppEnv>,
  principal: Principal,
  op: Operation<I, O>,
  raw: Record<string, unknown>,
  inputName = "form",
): Promise<v.InferOutput<O>> {
  const ctx = { ...deps, principal, via: "web" as const, requestId: c.get("requestId") };
  return (await invoke(op as unknown as Operation, ctx, { access: null, input: () => raw, inputName })) as v.InferOutput<O>;
}

/** Like runOperation, but a 404 (e.g. no standup yet) is null instead of an error. */
export async function runOptional<I extends AnySchema, O extends AnySchema>(
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  op: Operation<I, O>,
  raw: Record<string, unknown>,
): Promise<v.InferOutput<O> | null> {
  try {
    return await runOperation(deps, c, found, op, raw);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** A 400 of an operation as a form's errors: field → message ("(body)" for the form as a whole). */
export function formErrors(error: unknown): Record<string, string> | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const errors: Record<string, string> = {};
  for (const issue of error.extra.issues ?? [{ path: "(body)", message: error.message }]) errors[issue.path] ??= issue.message;
  if (Object.keys(errors).length === 0) errors["(body)"] = error.message;
  return errors;
}

/**
 * A form sent before anyone is signed in (setup, a welcome or reset link), so with no principal to
 * invoke an operation for: judged by its schema the way `invoke` judges an operation's input, its
 * issues mapped to field errors the one way (formErrors).
 */
export function judgeForm<S extends AnySchema>(schema: S, raw: unknown): { output: v.InferOutput<S> } | { errors: Record<string, string> } {
  try {
    return { output: parseOrThrow(schema, raw, "form") };
  } catch (error) {
    const errors = formErrors(error);
    if (!errors) throw error;
    return { errors };
  }
}

/**
 * The named fields of a form as an operation's input: trimmed, empty ones left out (an empty
 * optional field means "not given", as an absent JSON field does).
 */
export function formInput(form: URLSearchParams, names: readonly string[]): Record<string, string> {
  const input: Record<string, string> = {};
  for (const name of names) {
    const value = form.get(name)?.trim();
    if (value) input[name] = value;
  }
  return input;
}

/** The page's query as an operation's input: only the named parameters, empty ones left out; `limit` a number. */
export function queryInput(c: Context<AppEnv>, names: readonly string[]): Record<string, string | number> {
  const input: Record<string, string | number> = {};
  for (const name of names) {
    const value = c.req.query(name)?.trim();
    if (!value) continue;
    input[name] = name === "limit" && /^\d+$/.test(value) ? Number(value) : value;
  }
  return input;
}
