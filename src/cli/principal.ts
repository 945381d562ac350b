/**
 * The CLI as a door (src/docs/notes/operating.md, "The command line acts as the owner"): every
 * `crew` write runs its operation through the registry's `invoke`, with the CLI principal — the
 * organization's first active owner (earliest created), or, in an organization with no active
 * owner yet, the organization itself acting as owner (the scripted install's first user) — and
 * credential `cli`: the audit log says actor `cli`, no quota or plan tier is asked of the door (as
 * for a browser session), and the operation's own checks (owner role, validation, the rules of its
 * handler) apply as on every door. An input issue becomes a usage error naming the flag (exit 2);
 * any other refusal a one-line failure (exit 1).
 */
import type * as v from "valibot";
import { principalFor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { systemClock } from "../lib/clock.ts";
import type { AnySchema, Operation } from "../operations/registry.ts";
import { firstActiveOwner, type User } from "../store/auth/users.ts";
import type { Db } from "../store/db.ts";
import { CommandError, type Env, type Flags, parseEmail, UsageError, withStore } from "./support.ts";

const CLI = { type: "cli", id: "cli" } as const;

export async function cliPrincipal(db: Db, orgId: string): Promise<Principal> {
  const owner = await firstActiveOwner(db, orgId);
  if (owner) return principalFor(owner.id, { ...owner, orgId, role: "owner" }, CLI);
  return principalFor("cli", { orgId, email: "", name: "crew CLI", plan: "operator", role: "owner" }, CLI);
}

/** Which flag an input field comes from, when not `--field`. */
export interface FlagNames {
  flags?: Record<string, string>;
}

/**
 * Runs `op` on `orgId`'s data as the CLI principal. Errors become the dispatcher's: the first input
 * issue as `--flag: message` (a list item quoted, `--events ("deal.won"): …`), exit 2; a refusal by
 * the handler as its message, with the field's own words when it names one, exit 1.
 */
export async function runAsCli<I extends AnySchema, O extends AnySchema>(
  deps: { db: Db; config: Config },
  orgId: string,
  op: Operation<I, O>,
  input: Record<string, unknown>,
  names: FlagNames = {},
): Promise<v.InferOutput<O>> {
  const [{ invoke, InvalidInput }, { createEvents }, { createLogger }, { outboundPolicy }] = await Promise.all([
    import("../operations/invoke.ts"),
    import("../lib/events.ts"),
    import("../lib/log.ts"),
    import("../outbound-connector.ts"),
  ]);
  const ctx = {
    db: deps.db,
    config: deps.config,
    clock: systemClock,
    log: createLogger(deps.config.logLevel),
    events: createEvents(),
    outbound: outboundPolicy(deps.config.allowPrivateTargets),
    principal: await cliPrincipal(deps.db, orgId),
    via: "cli" as const,
    requestId: "cli",
  };
  const flagOf = (path: string) => {
    const field = path.replace(/\[\d+\].*$/, "");
    const item = /^[^[]+\[(\d+)\]/.exec(path)?.[1];
    const list = input[field];
    const value = item !== undefined && Array.isArray(list) ? ` ("${list[Number(item)]}")` : "";
    return `${names.flags?.[field] ?? `--${field}`}${value}`;
  };
  try {
    return (await invoke(op as unknown as Operation, ctx, { access: null, input: () => input, inputName: "flags" })) as v.InferOutput<O>;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const issue = error.extra.issues?.[0];
    if (error instanceof InvalidInput) throw new UsageError(issue ? `${flagOf(issue.path)}: ${issue.message}` : error.message);
    if (!issue || issue.path === "(body)") throw new CommandError(error.message);
    const more = error.message.includes(issue.message) ? "" : ` ${error.message}`;
    throw new CommandError(`${flagOf(issue.path)} is refused: ${issue.message}${more}`);
  }
}

/** Runs an operation as the CLI principal of the user's organization (src/cli/principal.ts). */
export type RunAsCli = <I extends AnySchema, O extends AnySchema>(
  op: Operation<I, O>,
  input: Record<string, unknown>,
) => Promise<v.InferOutput<O>>;

/**
 * `withStore` on the user named by `--email` (in any organization: emails are unique), with `run`
 * acting in that user's organization. An unknown email is a failure (exit 1).
 */
export async function withUser<T>(env: Env, flags: Flags, work: (user: User, run: RunAsCli, db: Db) => Promise<T>): Promise<T> {
  const email = parseEmail(String(flags.email));
  return withStore(env, async (db, _org, config) => {
    const { getUserByEmail } = await import("../store/auth/users.ts");
    const user = await getUserByEmail(db, email);
    if (!user) throw new CommandError(`no user with email ${email}`);
    return work(user, (op, input) => runAsCli({ db, config }, user.orgId, op, input), db);
  });
}
