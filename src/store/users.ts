import type { Plan } from "../domain.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "./db.ts";

export interface User {
  id: string;
  orgId: string;
  email: string;
  name: string;
  plan: Plan;
  timeZone: string | null;
  createdAt: number;
}

interface UserRow {
  id: string;
  org_id: string;
  email: string;
  name: string;
  plan: string;
  time_zone: string | null;
  created_at: number;
  password_hash: string;
}

const COLUMNS = "id, org_id, email, name, plan, time_zone, created_at, password_hash";
const toUser = (r: UserRow): User => ({
  id: r.id,
  orgId: r.org_id,
  email: r.email,
  name: r.name,
  plan: r.plan as Plan,
  timeZone: r.time_zone,
  createdAt: r.created_at,
});

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class EmailTakenError extends Error {}

export async function createUser(
  db: Db,
  input: { orgId: string; email: string; name: string; passwordHash: string; plan: Plan },
  now: number,
): Promise<User> {
  const id = newId("usr", now);
  try {
    await db.run("INSERT INTO users (id, org_id, email, name, password_hash, plan, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
      id,
      input.orgId,
      normalizeEmail(input.email),
      input.name,
      input.passwordHash,
      input.plan,
      now,
    ]);
  } catch (error) {
    if (String(error).includes("UNIQUE constraint failed: users.email")) throw new EmailTakenError(input.email);
    throw error;
  }
  const user = await getUserById(db, id);
  if (!user) throw new Error("user missing after insert");
  return user;
}

export async function getUserById(db: Db, id: string): Promise<User | null> {
  const row = await db.one<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
  return row ? toUser(row) : null;
}

/** The user and their password hash, for sign-in. Emails compare case-insensitively. */
export async function getUserByEmail(db: Db, email: string): Promise<(User & { passwordHash: string }) | null> {
  const row = await db.one<UserRow>(`SELECT ${COLUMNS} FROM users WHERE email = ?`, [normalizeEmail(email)]);
  return row ? { ...toUser(row), passwordHash: row.password_hash } : null;
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
