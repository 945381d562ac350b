/** Stored agent output that is read whole: standups, briefings, company profiles (JSON bodies). */
import { type Db, one } from "./db.ts";

export interface StoredReport<T> {
  id: string;
  generatedAt: number;
  body: T;
}

interface Row {
  id: string;
  generated_at: number;
  body: string;
  mode?: string;
}

const toReport = <T>(r: Row): StoredReport<T> => ({ id: r.id, generatedAt: r.generated_at, body: JSON.parse(r.body) as T });

export async function latestStandup<T>(
  db: Db,
  orgId: string,
  mode: "morning" | "evening" | "latest",
): Promise<(StoredReport<T> & { mode: "morning" | "evening" }) | null> {
  const row =
    mode === "latest"
      ? await one<Row>(
          db,
          "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
          [orgId],
        )
      : await one<Row>(
          db,
          "SELECT id, generated_at, body, mode FROM standups WHERE org_id = ? AND mode = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
          [orgId, mode],
        );
  return row ? { ...toReport<T>(row), mode: row.mode as "morning" | "evening" } : null;
}

export function standupInsertStatement(s: { id: string; orgId: string; mode: "morning" | "evening"; generatedAt: number; body: unknown }) {
  return {
    sql: "INSERT INTO standups (id, org_id, mode, generated_at, body) VALUES (?, ?, ?, ?, ?)",
    args: [s.id, s.orgId, s.mode, s.generatedAt, JSON.stringify(s.body)],
  };
}

export async function latestBriefing<T>(db: Db, userId: string): Promise<StoredReport<T> | null> {
  const row = await one<Row>(
    db,
    "SELECT id, generated_at, body FROM briefings WHERE user_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [userId],
  );
  return row ? toReport<T>(row) : null;
}

export function briefingInsertStatement(b: { id: string; orgId: string; userId: string; generatedAt: number; body: unknown }) {
  return {
    sql: "INSERT INTO briefings (id, org_id, user_id, generated_at, body) VALUES (?, ?, ?, ?, ?)",
    args: [b.id, b.orgId, b.userId, b.generatedAt, JSON.stringify(b.body)],
  };
}

export async function latestProfile<T>(db: Db, orgId: string): Promise<StoredReport<T> | null> {
  const row = await one<Row>(
    db,
    "SELECT id, generated_at, body FROM profiles WHERE org_id = ? ORDER BY generated_at DESC, id DESC LIMIT 1",
    [orgId],
  );
  return row ? toReport<T>(row) : null;
}

export function profileInsertStatement(p: { id: string; orgId: string; runId: string | null; generatedAt: number; body: unknown }) {
  return {
    sql: "INSERT INTO profiles (id, org_id, run_id, generated_at, body) VALUES (?, ?, ?, ?, ?)",
    args: [p.id, p.orgId, p.runId, p.generatedAt, JSON.stringify(p.body)],
  };
}
