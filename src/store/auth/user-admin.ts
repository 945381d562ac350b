/**
 * Administration of users at the command line (src/docs/notes/operating.md): listing, the deactivated check, setting a
 * password. Deactivation itself is `deactivateUser` (store/auth/users.ts), reset links are sign-in links
 * with purpose 'reset' (auth/sign-in-links.ts).
 */
import type { Plan, Role } from "../../domain.ts";
import { integer, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface UserListing {
  id: string;
  email: string;
  name: string;
  role: Role;
  plan: Plan;
  createdAt: number;
  deactivatedAt: number | null;
  activeKeys: number;
}

/** A user of the listing and their active keys. */
const LISTED = table("users", {
  id: text(),
  email: text(),
  name: text(),
  role: text<Role>(),
  plan: text<Plan>(),
  createdAt: integer(),
  deactivatedAt: nullable(integer()),
  activeKeys: integer("keys"),
});

export async function listUsers(db: Db, orgId: string): Promise<UserListing[]> {
  const rows = await db.all<SqlRow>(
    `SELECT u.id, u.email, u.name, u.role, u.plan, u.created_at, u.deactivated_at,
            (SELECT count(*) FROM api_keys k WHERE k.user_id = u.id AND k.revoked_at IS NULL) AS keys
       FROM users u
      WHERE u.org_id = ? ORDER BY u.created_at, u.id`,
    [orgId],
  );
  return rows.map(LISTED.read);
}

export async function isDeactivated(db: Db, userId: string): Promise<boolean> {
  return (await db.one("SELECT 1 AS x FROM users WHERE id = ? AND deactivated_at IS NOT NULL", [userId])) !== null;
}

/** Sets a password directly (`crew user reset-password --password`) and ends the user's sessions. */
export async function setPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.batch(
    [
      { sql: "UPDATE users SET password_hash = ? WHERE id = ?", args: [passwordHash, userId] },
      { sql: "DELETE FROM sessions WHERE user_id = ?", args: [userId] },
    ],
    "write",
  );
}
