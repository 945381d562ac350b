/**
 * `crew user create`, `crew user set-plan`, `crew user set-role` and `crew key create` (src/docs/notes/cli.md):
 * accounts and API keys, each through its operation as the CLI principal (src/cli/principal.ts),
 * so the password, plan, role and scope rules are the operations' own.
 */

import { allowedKeyScopes, type Plan } from "../domain.ts";
import { withUser } from "./principal.ts";
import { type CliIo, type Env, type Flags, printJson, withStore } from "./support.ts";

function planSummary(plan: Plan): string {
  const allowed = allowedKeyScopes(plan);
  return allowed.length ? `allowed key scopes: ${allowed.join(", ")}` : "no API access";
}

/** The string flags given, as an operation's input fields (absent ones left out, as an absent JSON field). */
function given(flags: Flags, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => (typeof flags[n] === "string" ? [[n, flags[n]]] : [])));
}

export async function createUserFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withStore(
    env,
    async (db, org, config) => {
      const [{ runAsCli }, { createUserWithPasswordOp }] = await Promise.all([
        import("./principal.ts"),
        import("../operations/user-admin.ts"),
      ]);
      const user = await runAsCli(
        { db, config },
        org.id,
        createUserWithPasswordOp,
        given(flags, ["email", "password", "name", "plan", "role"]),
      );
      if (flags.json) printJson(io, user);
      else io.out(`Created user ${user.email} (${user.id}) on plan ${user.plan}, role ${user.role}, in ${org.name}.\n`);
      return 0;
    },
    flags.org,
    // The scripted install (README) creates the database and its first user in one command.
    { create: true },
  );
}

/** `crew user set-role`: an organization always keeps at least one active owner (the operation says so). */
export async function setUserRoleFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const role = String(flags.role);
  return withUser(env, flags, async (user, run) => {
    if (user.role === role) {
      io.out(`${user.email} is already ${role === "owner" ? "an owner" : "a member"}; nothing changed.\n`);
      return 0;
    }
    await run((await import("../operations/users.ts")).updateUserOp, { id: user.id, role });
    io.out(`${user.email} is now ${role === "owner" ? "an owner: they manage the organization in the web app" : "a member"}.\n`);
    return 0;
  });
}

export async function setUserPlanFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withUser(env, flags, async (user, run) => {
    await run((await import("../operations/users.ts")).updateUserOp, { id: user.id, plan: flags.plan });
    const plan = flags.plan as Plan;
    io.out(`${user.email} is now on plan ${plan} (${planSummary(plan)}).\n`);
    return 0;
  });
}

/** Prints only the key on stdout (the note goes to stderr), so a script can capture it. */
export async function createKeyFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  // A comma-separated list, each scope once (the operation refuses a repeated one).
  const scopes = [
    ...new Set(
      String(flags.scopes)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  return withUser(env, flags, async (user, run) => {
    const { createUserApiKeyOp } = await import("../operations/user-admin.ts");
    const created = await run(createUserApiKeyOp, { userId: user.id, name: flags.name, scopes });
    if (flags.json) printJson(io, { ...created, email: user.email });
    else {
      io.out(`${created.key}\n`);
      io.err(
        `Created key "${created.name}" for ${user.email} with scopes ${created.scopes.join(", ")}. It is shown only once: store it now.\n`,
      );
    }
    return 0;
  });
}
