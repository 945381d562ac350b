import type { Plan, Role } from "../../domain.ts";
import { newId } from "../../lib/random.ts";
import { type AuditActor, auditStatementIf } from "../audit/audit.ts";
import { custom, integer, nullable, type SqlRow, table, text } from "../columns.ts";
import { type Db, isUniqueViolation } from "../db.ts";
import { rowLockStatement } from "../row-lock.ts";

export interface User {
  id: string;
  orgId: string;
  email: string;
  name: string;
  plan: Plan;
  timeZone: string | null;
  createdAt: number;
  role: Role;
  /** When an owner deactivated the user; null while active. */
  deactivatedAt: number | null;
}

/** The users table. */
const USERS = table("users", {
  id: text(),
  orgId: text(),
  email: text(),
  name: text(),
  plan: text<Plan>(),
  timeZone: nullable(text()),
  createdAt: integer(),
  passwordHash: text(),
  // Anything but an owner is a member.
  role: custom<Role>(
    (value) => (value === "owner" ? "owner" : "member"),
    (value) => value,
  )(),
  deactivatedAt: nullable(integer()),
});

const COLUMNS = USERS.select();

const toUser = (row: SqlRow): User => {
  const { passwordHash: _, ...user } = USERS.read(row);
  return user;
};

/** What a new user's insert names. */
const INSERTED = USERS.pick("id", "orgId", "email", "name", "passwordHash", "plan", "createdAt", "role");

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class EmailTakenError extends Error {}

export async function createUser(
  db: Db,
  input: { orgId: string; email: string; name: string; passwordHash: string; plan: Plan; role?: Role },
  now: number,
): Promise<User> {
  const id = newId("usr", now);
  try {
    await db.run(
      `INSERT INTO users (${INSERTED.insertColumns}) VALUES (${INSERTED.placeholders})`,
      INSERTED.args({ ...input, id, email: normalizeEmail(input.email), createdAt: now, role: input.role ?? "member" }),
    );
  } catch (error) {
    if (isUniqueViolation(error, "users", "email")) throw new EmailTakenError(input.email);
    throw error;
  }
  const user = await getUserById(db, id);
  if (!user) throw new Error("user missing after insert");
  return user;
}

export async function getUserById(db: Db, id: string): Promise<User | null> {
  const row = await db.one<SqlRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
  return row ? toUser(row) : null;
}

/** The user and their password hash, for sign-in. Emails compare case-insensitively. */
export async function getUserByEmail(db: Db, email: string): Promise<(User & { passwordHash: string }) | null> {
  const row = await db.one<SqlRow>(`SELECT ${COLUMNS} FROM users WHERE email = ?`, [normalizeEmail(email)]);
  return row ? USERS.read(row) : null;
}

export async function setUserPlan(db: Db, email: string, plan: Plan): Promise<boolean> {
  return (await db.run("UPDATE users SET plan = ? WHERE email = ?", [plan, normalizeEmail(email)])) === 1;
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db.one<{ n: number }>("SELECT count(*) AS n FROM users");
  return row?.n ?? 0;
}

export async function listOrgUserIds(db: Db, orgId: string): Promise<string[]> {
  const rows = await db.execute({ sql: "SELECT id FROM users WHERE org_id = ? ORDER BY created_at", args: [orgId] });
  return rows.rows.map((r) => String(r.id));
}

/** The organization's users, owners first, then by creation (the settings page's list). */
export async function listOrgUsers(db: Db, orgId: string): Promise<User[]> {
  const rows = await db.all<SqlRow>(`SELECT ${COLUMNS} FROM users WHERE org_id = ? ORDER BY role = 'owner' DESC, created_at, id`, [orgId]);
  return rows.map(toUser);
}

/** The organization's active owners' ids: it always keeps at least one (the web app, REST and the CLI check it). */
export async function activeOwnerIds(db: Db, orgId: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>("SELECT id FROM users WHERE org_id = ? AND role = 'owner' AND deactivated_at IS NULL", [orgId]);
  return rows.map((r) => r.id);
}

/** The organization's first active owner (earliest made, then id): whom the command line acts as. */
export async function firstActiveOwner(db: Db, orgId: string): Promise<{ id: string; email: string; name: string; plan: Plan } | null> {
  return db.one(
    "SELECT id, email, name, plan FROM users WHERE org_id = ? AND role = 'owner' AND deactivated_at IS NULL ORDER BY created_at, id LIMIT 1",
    [orgId],
  );
}

/** Changes a user's role and plan within one organization; false when no such user there. */
export async function updateOrgUser(db: Db, orgId: string, userId: string, changes: { role?: Role; plan?: Plan }): Promise<boolean> {
  const changed = await db.run("UPDATE users SET role = coalesce(?, role), plan = coalesce(?, plan) WHERE id = ? AND org_id = ?", [
    changes.role ?? null,
    changes.plan ?? null,
    userId,
    orgId,
  ]);
  return changed === 1;
}

export async function setUserPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.run("UPDATE users SET password_hash = ? WHERE id = ?", [passwordHash, userId]);
}

/**
 * Deactivates a user of the organization in one transaction (the web users page, the REST/MCP
 * operation and `crew user deactivate` all come here): the password becomes unusable (sign-in gives
 * the wrong-password answer), their sessions, API keys, OAuth grants and tokens and unused sign-in
 * links stop working at once, and the audit log records it. Their stored work stays. False when no
 * active user of that id is in the organization (unknown, or deactivated already).
 */
export async function deactivateUser(db: Db, orgId: string, userId: string, actor: AuditActor, now: number): Promise<boolean> {
  const user = await db.one<{ email: string }>("SELECT email FROM users WHERE id = ? AND org_id = ? AND deactivated_at IS NULL", [
    userId,
    orgId,
  ]);
  if (!user) return false;
  const ofOrg = "user_id IN (SELECT id FROM users WHERE id = ? AND org_id = ?)";
  const active = "id = ? AND org_id = ? AND deactivated_at IS NULL";
  const [, , updated] = await db.batch(
    [
      // A concurrent deactivation waits here, then finds them deactivated and writes no audit row.
      rowLockStatement("users", "deactivated_at", active, [userId, orgId]),
      auditStatementIf(
        { sql: `EXISTS (SELECT 1 FROM users WHERE ${active})`, args: [userId, orgId] },
        orgId,
        "user.deactivated",
        actor,
        now,
        user.email,
      ),
      {
        sql: `UPDATE users SET deactivated_at = ?, password_hash = '!deactivated' WHERE ${active}`,
        args: [now, userId, orgId],
      },
      { sql: `DELETE FROM sessions WHERE ${ofOrg}`, args: [userId, orgId] },
      { sql: `UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND ${ofOrg}`, args: [now, userId, orgId] },
      {
        sql: `UPDATE oauth_tokens SET revoked_at = ? WHERE revoked_at IS NULL
                AND grant_id IN (SELECT id FROM oauth_grants WHERE ${ofOrg})`,
        args: [now, userId, orgId],
      },
      { sql: `UPDATE oauth_grants SET revoked_at = ? WHERE revoked_at IS NULL AND ${ofOrg}`, args: [now, userId, orgId] },
      { sql: `UPDATE sign_in_links SET used_at = ? WHERE used_at IS NULL AND ${ofOrg}`, args: [now, userId, orgId] },
    ],
    "write",
  );
  return (updated?.rowsAffected ?? 0) === 1;
}
