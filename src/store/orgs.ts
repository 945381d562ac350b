import { AGENTS } from "../domain.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "./db.ts";

export interface Organization {
  id: string;
  name: string;
  timeZone: string;
}

interface OrgRow {
  id: string;
  name: string;
  time_zone: string;
}

const toOrg = (r: OrgRow): Organization => ({ id: r.id, name: r.name, timeZone: r.time_zone });

export async function getDefaultOrg(db: Db): Promise<Organization | null> {
  const row = await db.one<OrgRow>("SELECT id, name, time_zone FROM organizations WHERE is_default = 1");
  return row ? toOrg(row) : null;
}

export async function getOrg(db: Db, id: string): Promise<Organization | null> {
  const row = await db.one<OrgRow>("SELECT id, name, time_zone FROM organizations WHERE id = ?", [id]);
  return row ? toOrg(row) : null;
}

/**
 * Creates the default organization if there is none and seeds the 17 agents of every
 * organization. Idempotent and safe when two processes start at once (INSERT OR IGNORE on
 * unique keys).
 */
export async function ensureDefaultOrgAndAgents(db: Db, timeZone: string, now: number): Promise<Organization> {
  await db.execute({
    sql: "INSERT OR IGNORE INTO organizations (id, name, time_zone, is_default, created_at) VALUES (?, 'Default organization', ?, 1, ?)",
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
      sql: "INSERT OR IGNORE INTO agents (org_id, id, name, category, schedule, position) VALUES (?, ?, ?, ?, ?, ?)",
      args: [orgId, a.id, a.name, a.category, a.schedule, position],
    })),
    "write",
  );
}
