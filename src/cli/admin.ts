/**
 * Administration commands (src/docs/notes/operating.md): organizations, user list / password reset / deactivation,
 * key list / revoke, the audit log. Changes to an organization's users and keys run their
 * operations as the CLI principal (src/cli/principal.ts: audit actor "cli"); creating an
 * organization is the deployment operator's own (there is no organization, so no owner, to act as).
 */
import { isValidTimeZone } from "../config.ts";
import { iso, isoOrNull, systemClock } from "../lib/clock.ts";
import { withUser } from "./principal.ts";
import { type CliIo, CommandError, type Env, type Flags, parseTitle, printJson, UsageError, withStore } from "./support.ts";

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return `${rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")).join("\n")}\n`;
}

export async function createOrgFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const name = parseTitle("name", String(flags.name), 100);
  const zone = typeof flags["time-zone"] === "string" ? flags["time-zone"].trim() : undefined;
  if (zone !== undefined && !isValidTimeZone(zone))
    throw new UsageError(`--time-zone "${zone}" is not an IANA time zone such as Europe/Paris`);
  return withStore(env, async (db, _default, config) => {
    const { createOrg, OrgNameTakenError } = await import("../store/orgs/orgs.ts");
    try {
      const org = await createOrg(db, name, zone ?? config.defaultTimeZone, systemClock.now());
      if (flags.json) printJson(io, org);
      else io.out(`Created organization ${org.name} (${org.id}, time zone ${org.timeZone}) with its 17 agents.\n`);
      return 0;
    } catch (error) {
      if (error instanceof OrgNameTakenError) throw new CommandError(`an organization named "${name}" already exists`);
      throw error;
    }
  });
}

export async function listOrgsFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withStore(env, async (db) => {
    const orgs = await (await import("../store/orgs/orgs.ts")).listOrgs(db);
    if (flags.json) printJson(io, orgs);
    else
      io.out(
        table([
          ["ID", "NAME", "TIME ZONE", "USERS"],
          ...orgs.map((o) => [o.id, `${o.name}${o.isDefault ? " (default)" : ""}`, o.timeZone, String(o.users)]),
        ]),
      );
    return 0;
  });
}

export async function listUsersFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withStore(
    env,
    async (db, org) => {
      const users = await (await import("../store/auth/user-admin.ts")).listUsers(db, org.id);
      if (flags.json) {
        printJson(
          io,
          users.map((u) => ({ ...u, createdAt: iso(u.createdAt), deactivatedAt: isoOrNull(u.deactivatedAt) })),
        );
      } else {
        io.out(
          table([
            ["EMAIL", "NAME", "ROLE", "PLAN", "KEYS", "STATUS"],
            ...users.map((u) => [u.email, u.name, u.role, u.plan, String(u.activeKeys), u.deactivatedAt ? "deactivated" : "active"]),
          ]),
        );
      }
      return 0;
    },
    flags.org,
  );
}

export async function resetPasswordFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withUser(env, flags, async (user, run) => {
    const ops = await import("../operations/user-admin.ts");
    if (typeof flags.password === "string") {
      await run(ops.setUserPasswordOp, { id: user.id, password: flags.password });
      io.out(`Set a new password for ${user.email}; their sessions were ended.\n`);
      return 0;
    }
    const { link } = await run(ops.createPasswordResetLinkOp, { id: user.id });
    io.out(`${link}\n`);
    io.err(`A one-time link for ${user.email}, valid for one hour: it lets them choose a new password and signs them in.\n`);
    return 0;
  });
}

export async function deactivateUserFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withUser(env, flags, async (user, run) => {
    if (user.deactivatedAt !== null) {
      io.out(`${user.email} was deactivated already.\n`);
      return 0;
    }
    await run((await import("../operations/users.ts")).deactivateUserOp, { id: user.id });
    io.out(`Deactivated ${user.email}: their sessions, API keys and OAuth grants no longer work, and they cannot sign in.\n`);
    return 0;
  });
}

export async function listKeysFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  return withUser(env, flags, async (user, _run, db) => {
    const keys = await (await import("../store/auth/api-keys.ts")).listActiveApiKeys(db, user.id);
    if (flags.json)
      printJson(
        io,
        keys.map((k) => ({ ...k, createdAt: iso(k.createdAt), lastUsedAt: isoOrNull(k.lastUsedAt) })),
      );
    else if (keys.length === 0) io.out(`${user.email} has no active API keys.\n`);
    else
      io.out(
        table([
          ["HASH", "NAME", "SCOPES", "CREATED", "LAST USED"],
          ...keys.map((k) => [k.hash, k.name, k.scopes.join(","), iso(k.createdAt), isoOrNull(k.lastUsedAt) ?? "never"]),
        ]),
      );
    return 0;
  });
}

/** The key's organization is its holder's; a hash no active key has is judged in the default one (a 404, or a usage error). */
export async function revokeKeyFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const hash = String(flags.hash).trim().toLowerCase();
  return withStore(env, async (db, org, config) => {
    const [{ findActiveKeyOwner }, { runAsCli }, { revokeUserApiKeyOp }] = await Promise.all([
      import("../store/auth/api-keys.ts"),
      import("./principal.ts"),
      import("../operations/user-admin.ts"),
    ]);
    const orgId = (await findActiveKeyOwner(db, hash))?.orgId ?? org.id;
    const { email } = await runAsCli({ db, config }, orgId, revokeUserApiKeyOp, { hash });
    io.out(`Revoked the key of ${email}; requests with it now get 401.\n`);
    return 0;
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
/** A stored text as the terminal shows it: control characters escaped (rows written before subjects were cleaned). */
const escaped = (text: string) => text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

export async function auditFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const raw = typeof flags.limit === "string" ? flags.limit : "50";
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > 1000) throw new UsageError("--limit must be a whole number from 1 to 1000");
  return withStore(
    env,
    async (db, org) => {
      const entries = await (await import("../store/audit/audit.ts")).listAudit(db, org.id, limit);
      if (flags.json)
        printJson(
          io,
          entries.map((e) => ({ ...e, at: iso(e.at) })),
        );
      else if (entries.length === 0) io.out(`No audit events in ${org.name} yet.\n`);
      else
        io.out(
          table([
            ["TIME", "EVENT", "ACTOR", "SUBJECT"],
            ...entries.map((e) => [iso(e.at), e.event, e.actor.kind === "user" ? e.actor.userId : e.actor.kind, escaped(e.subject ?? "")]),
          ]),
        );
      return 0;
    },
    flags.org,
  );
}
