/**
 * What starts an agent besides its schedule (src/docs/notes/connections.md): whether new mail
 * starts it (`agents.run_on_new_mail`), and its event-trigger secret, sealed, with the owner who
 * made it (`agents.trigger_secret`, `trigger_secret_by`).
 */
import { boolean, nullable, type SqlRow, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface AgentTriggers {
  orgId: string;
  runOnNewMail: boolean;
  /** Sealed `whsec_…`; null until an owner made one. */
  secret: string | null;
  secretBy: string | null;
}

const TRIGGERS = table("agents", {
  orgId: text(),
  runOnNewMail: boolean(),
  secret: nullable(text("trigger_secret")),
  secretBy: nullable(text("trigger_secret_by")),
});

export async function agentTriggers(db: Db, orgId: string, agentId: string): Promise<AgentTriggers | null> {
  const row = await db.one<SqlRow>(`SELECT ${TRIGGERS.select()} FROM agents WHERE org_id = ? AND id = ?`, [orgId, agentId]);
  return row ? TRIGGERS.read(row) : null;
}

export async function setRunOnNewMail(db: Db, orgId: string, agentId: string, on: boolean): Promise<void> {
  await db.run("UPDATE agents SET run_on_new_mail = ? WHERE org_id = ? AND id = ?", [on ? 1 : 0, orgId, agentId]);
}

/** Replaces the agent's trigger secret: the previous one stops working at once. */
export async function setTriggerSecret(db: Db, orgId: string, agentId: string, sealed: string, userId: string): Promise<void> {
  await db.run("UPDATE agents SET trigger_secret = ?, trigger_secret_by = ? WHERE org_id = ? AND id = ?", [sealed, userId, orgId, agentId]);
}

/**
 * The organizations whose agent of that id has a trigger secret: a signed post names the agent,
 * not the organization, so its signature is checked against each (one on most deployments).
 */
export async function triggerSecretsOf(db: Db, agentId: string, limit: number): Promise<AgentTriggers[]> {
  const rows = await db.all<SqlRow>(
    `SELECT ${TRIGGERS.select()} FROM agents WHERE id = ? AND trigger_secret IS NOT NULL ORDER BY org_id LIMIT ?`,
    [agentId, limit],
  );
  return rows.map(TRIGGERS.read);
}

/** The organizations where new mail starts the agent. */
export async function orgsRunningOnNewMail(db: Db, agentId: string): Promise<string[]> {
  const rows = await db.all<{ org_id: string }>("SELECT org_id FROM agents WHERE id = ? AND run_on_new_mail = 1 ORDER BY org_id", [
    agentId,
  ]);
  return rows.map((r) => r.org_id);
}
