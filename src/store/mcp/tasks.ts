/**
 * MCP tasks in the store (src/mcp/tasks.ts): one row per task, readable by every process sharing
 * the database, and only by the credential that created it. Each change is one statement.
 */
import { boolean, integer, json, nullable, table, text } from "../columns.ts";
import type { Db } from "../db.ts";

export type TaskStatus = "working" | "completed" | "failed" | "cancelled";

const MCP_TASKS = table("mcp_tasks", {
  id: text(),
  orgId: text(),
  owner: text(),
  status: text<TaskStatus>(),
  result: nullable(json<unknown>(null)),
  error: nullable(json<{ code: number; message: string } | null>(null)),
  cancelRequested: boolean(),
  createdAt: integer(),
  updatedAt: integer(),
  expiresAt: integer(),
});

export type TaskRecord = ReturnType<typeof MCP_TASKS.read>;

/** Records a new working task, and forgets the expired ones (the table's retention). */
export async function insertTask(db: Db, task: Pick<TaskRecord, "id" | "orgId" | "owner" | "createdAt" | "expiresAt">): Promise<void> {
  await db.batch([
    { sql: "DELETE FROM mcp_tasks WHERE expires_at < ?", args: [task.createdAt] },
    {
      sql: `INSERT INTO mcp_tasks (${MCP_TASKS.insertColumns}) VALUES (${MCP_TASKS.placeholders})`,
      args: MCP_TASKS.args({ ...task, status: "working", result: null, error: null, cancelRequested: false, updatedAt: task.createdAt }),
    },
  ]);
}

/** The owner's task, unless it expired; null for anyone else's. */
export function findTask(db: Db, id: string, owner: string, now: number): Promise<TaskRecord | null> {
  return MCP_TASKS.one(db, `SELECT ${MCP_TASKS.select()} FROM mcp_tasks WHERE id = ? AND owner = ? AND expires_at >= ?`, [id, owner, now]);
}

/** Ends a working task (once: a finished task stays as it ended). */
export async function settleTask(
  db: Db,
  id: string,
  outcome: { status: Exclude<TaskStatus, "working">; result?: unknown; error?: { code: number; message: string } },
  now: number,
): Promise<void> {
  await db.run("UPDATE mcp_tasks SET status = ?, result = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'working'", [
    outcome.status,
    outcome.result === undefined ? null : JSON.stringify(outcome.result),
    outcome.error === undefined ? null : JSON.stringify(outcome.error),
    now,
    id,
  ]);
}

/** Asks the process running the owner's working task to stop it; false when there is no such task. */
export async function requestTaskCancel(db: Db, id: string, owner: string, now: number): Promise<boolean> {
  const changed = await db.run(
    "UPDATE mcp_tasks SET cancel_requested = 1 WHERE id = ? AND owner = ? AND expires_at >= ? AND status = 'working'",
    [id, owner, now],
  );
  return changed > 0 || (await findTask(db, id, owner, now)) !== null;
}

/** Whether a cancel was asked for the task (by any process). */
export async function taskCancelRequested(db: Db, id: string): Promise<boolean> {
  const row = await db.one<{ c: number }>("SELECT cancel_requested AS c FROM mcp_tasks WHERE id = ?", [id]);
  return row?.c === 1 || (row?.c as unknown) === true;
}
