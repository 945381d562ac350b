/**
 * Contacts, the CRM's people (src/docs/notes/rest-api.md): every statement on the contacts table —
 * the upsert of the API and agent runs, the demo's insert-if-absent, the reference check of new
 * actions, the web app's listing, what a model-backed run and the dna agent read.
 */
import type { InStatement } from "@libsql/client";
import type { FieldIssue } from "../../errors.ts";
import { integer, nullable, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export interface ContactRecord {
  id: string;
  name: string;
  email: string | null;
  company: string | null;
  role: string | null;
  relationship: string;
  notes: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The contacts table, in the order inserts name its columns. */
const CONTACTS = table("contacts", {
  id: text(),
  orgId: text(),
  name: text(),
  nameKey: text(),
  email: nullable(text()),
  company: nullable(text()),
  role: nullable(text()),
  relationship: text(),
  notes: nullable(text()),
  createdBy: text(),
  createdAt: integer(),
  updatedAt: integer(),
});

/** What the listing reads: the record and its sort key. */
const LISTED = CONTACTS.pick("id", "name", "nameKey", "email", "company", "role", "relationship", "notes", "createdAt", "updatedAt");

/** A contact as the model reads it: the stored record without its timestamps. */
export type ContactInput = Omit<ContactRecord, "createdAt" | "updatedAt">;

const FOR_MODEL = CONTACTS.pick("id", "name", "email", "company", "role", "relationship", "notes", "createdBy");

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

/**
 * A run's note on a contact, for the contact's history ("noted by {agent}", src/docs/notes/prompt-injection.md#caps):
 * the contact is found by email (or by name when it has none) in the same batch that upserted it.
 */
export function contactNoteStatement(
  n: { id: string; orgId: string; email?: string; name: string; agentId: string; runId: string | null; note: string; evidence: unknown[] },
  now: number,
) {
  const email = n.email?.trim().toLowerCase() || null;
  return {
    sql: `INSERT INTO contact_notes (id, org_id, contact_id, agent_id, run_id, note, evidence, created_at)
          SELECT ?, org_id, id, ?, ?, ?, ?, ? FROM contacts
           WHERE org_id = ? AND ${email ? "email = ?" : "email IS NULL AND name_key = ?"} LIMIT 1`,
    args: [n.id, n.agentId, n.runId, n.note.slice(0, 2000), JSON.stringify(n.evidence), now, n.orgId, email ?? n.name.trim().toLowerCase()],
  };
}

/** A contact's history: what runs noted about it, newest first. */
export async function contactNotes(
  db: Db,
  orgId: string,
  contactId: string,
  limit = 20,
): Promise<{ agent: string; note: string; createdAt: number }[]> {
  const rows = await db.all<{ agent_id: string; note: string; created_at: number }>(
    "SELECT agent_id, note, created_at FROM contact_notes WHERE org_id = ? AND contact_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
    [orgId, contactId, limit],
  );
  return rows.map((r) => ({ agent: r.agent_id, note: r.note, createdAt: Number(r.created_at) }));
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

/** A contact row to insert: the record's fields, its organization and who made it. */
export interface ContactInsert extends Omit<ContactRecord, "updatedAt"> {
  orgId: string;
  createdBy: string;
}

/** A contact that matches an existing one (same email, or same name without email) is skipped (the demo's seed). */
export function contactInsertStatement(c: ContactInsert): InStatement {
  return {
    sql: `INSERT INTO contacts (${CONTACTS.insertColumns})
          VALUES (${CONTACTS.placeholders}) ON CONFLICT DO NOTHING`,
    args: CONTACTS.args({
      ...c,
      nameKey: c.name.trim().toLowerCase(),
      email: c.email?.trim().toLowerCase() ?? null,
      updatedAt: c.createdAt,
    }),
  };
}

/** Name order: the cursor is the last row's (name key, id). */
export interface ContactCursor {
  nameKey: string;
  id: string;
}

/** `%` and `_` in the search are literal characters, not patterns; lower-cased, as every column it is matched with (case is ignored on both engines). */
const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The web app's and the API's listing (src/docs/notes/web-app.md): name order, with a search. */
export async function listContacts(
  db: Db,
  orgId: string,
  q: string | undefined,
  limit: number,
  after: ContactCursor | null,
): Promise<{ contacts: ContactRecord[]; next: ContactCursor | null }> {
  const where = ["org_id = ?"];
  const args: (string | number)[] = [orgId];
  if (q) {
    const pattern = likePattern(q);
    where.push(
      "(name_key LIKE ? ESCAPE '\\' OR lower(coalesce(email, '')) LIKE ? ESCAPE '\\' OR lower(coalesce(company, '')) LIKE ? ESCAPE '\\')",
    );
    args.push(pattern, pattern, pattern);
  }
  if (after) {
    // A row value seeks on contacts_by_name; the equivalent OR form walks from the first row.
    where.push("(name_key, id) > (?, ?)");
    args.push(after.nameKey, after.id);
  }
  const rows = await LISTED.all(
    db,
    `SELECT ${LISTED.select()} FROM contacts
      WHERE ${where.join(" AND ")} ORDER BY name_key, id LIMIT ?`,
    [...args, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    contacts: page.map(({ nameKey: _, ...contact }) => contact),
    next: rows.length > limit && last ? { nameKey: last.nameKey, id: last.id } : null,
  };
}

/** The organization's most recently touched contacts, what a model-backed run reads. */
export async function recentContacts(db: Db, orgId: string, limit: number): Promise<(ContactInput & { createdBy: string })[]> {
  return FOR_MODEL.all(
    db,
    `SELECT ${FOR_MODEL.select()} FROM contacts WHERE org_id = ?
      ORDER BY updated_at DESC, id DESC LIMIT ?`,
    [orgId, limit],
  );
}

/** What the dna agent reads of the contacts: how many per relationship, and the companies with the most (key and active first), at most 5. */
export async function contactFigures(db: Db, orgId: string): Promise<{ byRelationship: Record<string, number>; topCompanies: string[] }> {
  const [relationships, companies] = await Promise.all([
    db.all<{ relationship: string; n: number }>("SELECT relationship, count(*) AS n FROM contacts WHERE org_id = ? GROUP BY relationship", [
      orgId,
    ]),
    db.all<{ company: string }>(
      `SELECT company FROM contacts WHERE org_id = ? AND company IS NOT NULL AND company != ''
        GROUP BY company ORDER BY sum(CASE WHEN relationship IN ('key', 'active') THEN 1 ELSE 0 END) DESC, count(*) DESC, company LIMIT 5`,
      [orgId],
    ),
  ]);
  return {
    byRelationship: Object.fromEntries(relationships.map((r) => [r.relationship, r.n])),
    topCompanies: companies.map((c) => c.company),
  };
}
