/**
 * One way to run an operation, whichever projection calls it (REST, MCP over HTTP or stdio, web
 * pages): the role an owner-only operation needs (403), then authorize by plan, then scope (403), validate the input (400), call the handler. Everything a
 * caller can get wrong is thrown as an ApiError; the projections only translate errors into
 * their wire format (the REST envelope, an MCP tool error).
 */

import { type Access, denial, requiredScopeName } from "../auth/access.ts";
import { ownerDenial } from "../auth/roles.ts";
import type { Principal } from "../domain.ts";
import { ApiError, type FieldIssue } from "../errors.ts";
import { inSpan, tracingEnabled } from "../lib/tracing.ts";
import { inputSchemaFor, type Operation, type OperationContext } from "./registry.ts";
import { parseOrThrow } from "./validate.ts";

/** The input did not match the operation's schema (thrown before the handler runs). */
export class InvalidInput extends ApiError {
  constructor(
    from: ApiError,
    readonly issues: FieldIssue[],
  ) {
    super(from.status, from.code, from.message, from.extra);
  }
}

/** Plan, then scope (403); a plan refusal's challenge names the scope the operation needs. */
export function authorizeOperation(principal: Principal, access: Access): void {
  const denied = denial(principal, access);
  if (!denied) return;
  if (denied.code !== "plan_upgrade_required") throw denied;
  throw new ApiError(denied.status, denied.code, denied.message, {
    ...denied.extra,
    challenge_scope: requiredScopeName(principal.credential, access),
  });
}

export interface Invocation {
  /** What the principal needs in this projection; null when the operation checks it itself. */
  access: Access | null;
  /** Read only once authorized, so a refused caller learns nothing about its input first. */
  input: () => unknown | Promise<unknown>;
  /** How the input is named in a 400 message: "request body", "query". */
  inputName: string;
}

/** The role first: a member refused an owner-only operation learns it is about the role, not the plan. */
export function authorizeRole(op: Pick<Operation, "role">, ctx: Pick<OperationContext, "principal">): void {
  if (op.role !== "owner") return;
  const denied = ownerDenial(ctx.principal);
  if (denied) throw denied;
}

export async function invoke(op: Operation, ctx: OperationContext, call: Invocation): Promise<unknown> {
  authorizeRole(op, ctx);
  if (call.access) authorizeOperation(ctx.principal, call.access);
  const raw = await call.input();
  let input: unknown;
  try {
    input = parseOrThrow(inputSchemaFor(op, raw), raw, call.inputName);
  } catch (error) {
    if (error instanceof ApiError) throw new InvalidInput(error, error.extra.issues ?? []);
    throw error;
  }
  // A span per operation (src/docs/notes/tracing.md): its id and the door it came through, never its input.
  return tracingEnabled()
    ? inSpan(`operation ${op.id}`, { "crew.operation": op.id, "crew.via": String(ctx.via) }, () => op.handler(ctx, input as never))
    : op.handler(ctx, input as never);
}
