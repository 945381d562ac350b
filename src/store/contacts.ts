import type { FieldIssue } from "../errors.ts";
import type { Db } from "./db.ts";

export interface ContactFields {
  name: string;
  email?: string;
  company?: string;
  role?: string;
  relationship?: string;
  notes?: string;
}

/**
 * Creates or updates a contact in one atomic statement (src/docs/notes/rest-api.md): matched on the normalized email,
 * or, without an email, on the normalized name among contacts that have none. An update changes
 * only the fields sent. Concurrent upserts of one email make one contact: the unique partial
 * indexes decide, not a read-then-write.
 */
export async function upsertContact(
  db: Db,
  orgId: string,
  newId: string,
  fields: ContactFields,
  createdBy: string,
  now: number,
): Promise<{ id: string; created: boolean }> {
  const statement = upsertContactStatement(orgId, newId, fields, createdBy, now);
  const row = await db.one<{ id: string }>(statement.sql, statement.args);
  if (!row) throw new Error("contact upsert returned no row");
  return { id: row.id, created: row.id === newId };
}

/** The upsert as one statement (RETURNING id), for batches that store a contact with other rows. */
export function upsertContactStatement(orgId: string, newId: string, fields: ContactFields, createdBy: string, now: number) {
  const email = fields.email?.trim().toLowerCase() || null;
  const nameKey = fields.name.trim().toLowerCase();
  const target = email ? "(org_id, email) WHERE email IS NOT NULL" : "(org_id, name_key) WHERE email IS NULL";
  return {
    sql: `INSERT INTO contacts (id, org_id, name, name_key, email, company, role, relationship, notes, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, coalesce(?, 'contact'), ?, ?, ?, ?)
     ON CONFLICT ${target} DO UPDATE SET
       name = excluded.name,
       name_key = excluded.name_key,
       company = coalesce(?, contacts.company),
       role = coalesce(?, contacts.role),
       relationship = coalesce(?, contacts.relationship),
       notes = coalesce(?, contacts.notes),
       updated_at = excluded.updated_at
     RETURNING id`,
    args: [
      newId,
      orgId,
      fields.name,
      nameKey,
      email,
      fields.company ?? null,
      fields.role ?? null,
      fields.relationship ?? null,
      fields.notes ?? null,
      createdBy,
      now,
      now,
      fields.company ?? null,
      fields.role ?? null,
      fields.relationship ?? null,
      fields.notes ?? null,
    ],
  };
}

/** Which of these contact ids exist in the organization. */
export async function existingContactIds(db: Db, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await db.execute({
    sql: `SELECT id FROM contacts WHERE org_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
    args: [orgId, ...ids],
  });
  return new Set(result.rows.map((r) => String(r.id)));
}

/**
 * The contact-reference check of new actions (REST, MCP, agent runs): an issue per action whose
 * contactId names no contact of the organization, at the path `pathOf` gives.
 */
export async function contactIssues(
  db: Db,
  orgId: string,
  items: readonly { contactId?: string }[],
  pathOf: (index: number) => string,
): Promise<FieldIssue[]> {
  const wanted = [...new Set(items.flatMap((a) => (a.contactId ? [a.contactId] : [])))];
  const known = await existingContactIds(db, orgId, wanted);
  return items.flatMap((a, i) =>
    a.contactId && !known.has(a.contactId) ? [{ path: pathOf(i), message: "No contact with this id." }] : [],
  );
}
