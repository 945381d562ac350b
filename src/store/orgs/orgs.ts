import { AGENTS } from "../../domain.ts";
import { newId } from "../../lib/random.ts";
import { boolean, integer, type SqlRow, table, text } from "../columns.ts";
import { type Db, isUniqueViolation } from "../db.ts";

export interface Organization {
  id: string;
  name: string;
  timeZone: string;
}

const ORG = table("organizations", { id: text(), name: text(), timeZone: text() });

const toOrg = (row: SqlRow): Organization => ORG.read(row);

/** The listing adds whether it is the default and how many users it has. */
const LISTED = table("organizations", { ...ORG.columns, isDefault: boolean(), users: integer() });

export async function getDefaultOrg(db: Db): Promise<Organization | null> {
  const row = await db.one<SqlRow>("SELECT id, name, time_zone FROM organizations WHERE is_default = 1");
  return row ? toOrg(row) : null;
}

export async function getOrg(db: Db, id: string): Promise<Organization | null> {
  const row = await db.one<SqlRow>("SELECT id, name, time_zone FROM organizations WHERE id = ?", [id]);
  return row ? toOrg(row) : null;
}

/**
 * Creates the default organization if there is none and seeds the 17 agents of every
 * organization. Idempotent and safe when two processes start at once (ON CONFLICT DO NOTHING on
 * unique keys).
 */
export async function ensureDefaultOrgAndAgents(db: Db, timeZone: string, now: number): Promise<Organization> {
  await db.execute({
    sql: "INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES (?, 'Default organization', ?, 1, ?) ON CONFLICT DO NOTHING",
    args: [newId("org", now), timeZone, now],
  });
  const org = await getDefaultOrg(db);
  if (!org) throw new Error("default organization missing after insert");
  await seedAgents(db, org.id);
  return org;
}

export async function seedAgents(db: Db, orgId: string): Promise<void> {
  await db.batch(
    AGENTS.map((a, position) => ({
      sql: "INSERT INTO agents (org_id, id, name, category, schedule, position) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      args: [orgId, a.id, a.name, a.category, a.schedule, position],
    })),
    "write",
  );
}

/** Every organization, the default first. */
export async function listOrgs(db: Db): Promise<(Organization & { isDefault: boolean; users: number })[]> {
  const rows = await db.all<SqlRow>(
    `SELECT o.id, o.name, o.time_zone, o.is_default, (SELECT count(*) FROM users u WHERE u.org_id = o.id) AS users
       FROM organizations o ORDER BY o.is_default DESC, o.created_at, o.id`,
  );
  return rows.map(LISTED.read);
}

/** An organization by id (`org_…`) or by exact name. */
export async function findOrg(db: Db, ref: string): Promise<Organization | null> {
  const row = await db.one<SqlRow>("SELECT id, name, time_zone FROM organizations WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC", [ref]);
  return row ? toOrg(row) : null;
}

export class OrgNameTakenError extends Error {}

/** Creates an organization with its 17 agents (src/docs/notes/operating.md); names are unique. */
export async function createOrg(db: Db, name: string, timeZone: string, now: number): Promise<Organization> {
  const id = newId("org", now);
  try {
    await db.run("INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES (?, ?, ?, 0, ?)", [
      id,
      name,
      timeZone,
      now,
    ]);
  } catch (error) {
    if (isUniqueViolation(error, "organizations", "name")) throw new OrgNameTakenError(name);
    throw error;
  }
  await seedAgents(db, id);
  return { id, name, timeZone };
}
