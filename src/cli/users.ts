/**
 * `crew user create`, `crew user set-plan` and `crew key create` (SPEC §1): accounts and API keys
 * in the default organization. Each checks its flags first and loads the store modules only then,
 * so a usage error answers as fast as `--help`.
 */

import { allowedKeyScopes, cheapestPlanFor, KEY_SCOPES, type KeyScope, PLANS, type Plan, ROLES, type Role } from "../domain.ts";
import { iso, systemClock } from "../lib/clock.ts";
import { type CliIo, CommandError, type Env, type Flags, parseEmail, parseTitle, printJson, UsageError, withStore } from "./support.ts";

function parsePlan(value: string): Plan {
  if ((PLANS as readonly string[]).includes(value)) return value as Plan;
  throw new UsageError(`unknown plan "${value}"; plans are ${PLANS.join(", ")}`);
}

function planSummary(plan: Plan): string {
  const allowed = allowedKeyScopes(plan);
  return allowed.length ? `allowed key scopes: ${allowed.join(", ")}` : "no API access";
}

export async function createUserFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const email = parseEmail(String(flags.email));
  const password = String(flags.password);
  if (password.length < 8) throw new UsageError("--password must be at least 8 characters");
  const name = parseTitle("name", typeof flags.name === "string" ? flags.name : (email.split("@")[0] ?? email), 200);
  const plan = parsePlan(typeof flags.plan === "string" ? flags.plan : "lite");
  const asked = typeof flags.role === "string" ? parseRole(flags.role) : null;
  return withStore(
    env,
    async (db, org) => {
      const [{ hashPassword }, { createUser, EmailTakenError, activeOwnerIds }, { recordAudit }] = await Promise.all([
        import("../auth/passwords.ts"),
        import("../store/users.ts"),
        import("../store/audit.ts"),
      ]);
      // The first user of an organization is its owner (as on the setup page), unless --role says
      // otherwise: an organization without an owner has no one who can manage it in the web app.
      const role = asked ?? ((await activeOwnerIds(db, org.id)).length === 0 ? "owner" : "member");
      const passwordHash = await hashPassword(password);
      let user: Awaited<ReturnType<typeof createUser>>;
      try {
        user = await createUser(db, { orgId: org.id, email, name, passwordHash, plan, role }, systemClock.now());
      } catch (error) {
        if (error instanceof EmailTakenError) throw new CommandError(`a user with email ${email} already exists`);
        throw error;
      }
      await recordAudit(db, org.id, "user.created", { kind: "cli" }, systemClock.now(), user.email, { plan, role });
      if (flags.json) printJson(io, { ...user, createdAt: iso(user.createdAt) });
      else io.out(`Created user ${user.email} (${user.id}) on plan ${user.plan}, role ${user.role}, in ${org.name}.\n`);
      return 0;
    },
    flags.org,
    // The scripted install (README) creates the database and its first user in one command.
    { create: true },
  );
}

function parseRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new UsageError(`unknown role "${value}"; roles are ${ROLES.join(", ")}`);
}

/** `crew user set-role`: an organization always keeps at least one active owner. */
export async function setUserRoleFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const email = parseEmail(String(flags.email));
  const role = parseRole(String(flags.role));
  return withStore(env, async (db) => {
    const [{ getUserByEmail, updateOrgUser, activeOwnerIds }, { recordAudit }] = await Promise.all([
      import("../store/users.ts"),
      import("../store/audit.ts"),
    ]);
    const user = await getUserByEmail(db, email);
    if (!user) throw new CommandError(`no user with email ${email}`);
    if (user.role === role) {
      io.out(`${email} is already ${role === "owner" ? "an owner" : "a member"}; nothing changed.\n`);
      return 0;
    }
    const owners = await activeOwnerIds(db, user.orgId);
    if (role === "member" && owners.length === 1 && owners[0] === user.id) {
      throw new CommandError(
        `${email} is the organization's last owner; make someone else an owner first (crew user set-role --role owner)`,
      );
    }
    await updateOrgUser(db, user.orgId, user.id, { role });
    await recordAudit(db, user.orgId, "user.role_changed", { kind: "cli" }, systemClock.now(), email, { role, from: user.role });
    io.out(`${email} is now ${role === "owner" ? "an owner: they manage the organization in the web app" : "a member"}.\n`);
    return 0;
  });
}

export async function setUserPlanFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const email = parseEmail(String(flags.email));
  const plan = parsePlan(String(flags.plan));
  return withStore(env, async (db) => {
    const { setUserPlan } = await import("../store/users.ts");
    if (!(await setUserPlan(db, email, plan))) throw new CommandError(`no user with email ${email}`);
    const user = await (await import("../store/users.ts")).getUserByEmail(db, email);
    if (user)
      await (await import("../store/audit.ts")).recordAudit(
        db,
        user.orgId,
        "user.plan_changed",
        { kind: "cli" },
        systemClock.now(),
        email,
        { plan },
      );
    io.out(`${email} is now on plan ${plan} (${planSummary(plan)}).\n`);
    return 0;
  });
}

/** Prints only the key on stdout (the note goes to stderr), so a script can capture it. */
export async function createKeyFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const email = parseEmail(String(flags.email));
  const name = parseTitle("name", String(flags.name), 100);
  const scopes = [
    ...new Set(
      String(flags.scopes)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (scopes.length === 0) throw new UsageError("--scopes needs at least one scope");
  const unknown = scopes.filter((s) => !(KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown scope "${unknown[0]}"; scopes are ${KEY_SCOPES.join(", ")}`);
  return withStore(env, async (db) => {
    const [{ getUserByEmail }, { generateApiKey }, { insertApiKey }] = await Promise.all([
      import("../store/users.ts"),
      import("../auth/api-keys.ts"),
      import("../store/api-keys.ts"),
    ]);
    const user = await getUserByEmail(db, email);
    if (!user) throw new CommandError(`no user with email ${email}`);
    const allowed = allowedKeyScopes(user.plan);
    const refused = scopes.filter((s) => !allowed.includes(s as KeyScope));
    if (allowed.length === 0) {
      throw new CommandError(
        `plan ${user.plan} includes no API access, so ${email} cannot have keys; upgrade to pro or operator (crew user set-plan)`,
      );
    }
    if (refused.length) {
      throw new CommandError(
        `scope ${refused.join(", ")} is outside plan ${user.plan} (${planSummary(user.plan)}); it needs plan ${cheapestPlanFor("write")}`,
      );
    }
    const { isDeactivated } = await import("../store/user-admin.ts");
    if (await isDeactivated(db, user.id)) throw new CommandError(`${email} is deactivated and cannot have keys`);
    const now = systemClock.now();
    const { key, hash } = generateApiKey();
    await insertApiKey(db, { hash, userId: user.id, name, scopes: scopes as KeyScope[] }, now);
    await (await import("../store/audit.ts")).recordAudit(db, user.orgId, "key.created", { kind: "cli" }, now, hash, {
      user: user.email,
      name,
      scopes,
    });
    if (flags.json) printJson(io, { key, hash, name, scopes, createdAt: iso(now), email: user.email });
    else {
      io.out(`${key}\n`);
      io.err(`Created key "${name}" for ${user.email} with scopes ${scopes.join(", ")}. It is shown only once: store it now.\n`);
    }
    return 0;
  });
}
