/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) for `crew_run_agent`: a client whose
 * request declares the extension gets a task at once (`resultType: "task"`), then polls
 * `tasks/get` (working → completed with the tool result inlined, or failed with an error) and may
 * `tasks/cancel`; a cancel before the model is called abandons the run. A tool error is a
 * completed task whose result has `isError`.
 *
 * Tasks live in the database for an hour (store/mcp/tasks.ts), so any process sharing it answers
 * `tasks/get` and `tasks/cancel` — for the credential that created the task (an API key, or an
 * OAuth grant, whose refreshed tokens stay its own) and nobody else, who is told the task is
 * unknown. The work runs in the process that took the call: a cancel through that process stops
 * it at once, one through another process reaches it through the row within POLL_MS. A task whose
 * process died stays `working` until it expires.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Credential } from "../domain.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { findTask, insertTask, requestTaskCancel, settleTask, type TaskRecord, taskCancelRequested } from "../store/mcp/tasks.ts";
import { INVALID_PARAMS, protocolError } from "./protocol-error.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** The tools that run as tasks for clients that declare the extension. */
export const TASK_TOOLS = new Set(["crew_run_agent"]);
const TTL_MS = 60 * 60 * 1000;
const POLL_MS = 1000;

export const tasksDeclared = (capabilities: { extensions?: Record<string, unknown> } | undefined) =>
  capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;

/** -32021: a task method from a client that did not declare the extension. */
export const missingCapability = () =>
  protocolError(-32021, `Declare the ${TASKS_EXTENSION} extension in the request's client capabilities to use tasks.`);
const unknownTask = (id: string) => protocolError(INVALID_PARAMS, `Unknown task: ${id}.`);

/** Who a task belongs to: the key, or the OAuth grant (a refreshed access token keeps its tasks). */
export function taskOwner(credential: Credential): string {
  return credential.type === "oauth" ? `oauth:${credential.grantId}` : `${credential.type}:${credential.id}`;
}

export interface TaskDeps {
  db: Db;
  clock: Clock;
  log: Logger;
}

export class TaskStore {
  /** The tasks this process runs, to stop one at once when its cancel comes through here. */
  readonly #running = new Map<string, AbortController>();
  constructor(private readonly deps: TaskDeps) {}

  /** Records the task, starts `work` now and answers the CreateTaskResult. */
  async start(owner: string, orgId: string, work: (signal: AbortSignal) => Promise<CallToolResult>) {
    const { db, clock, log } = this.deps;
    const now = clock.now();
    const taskId = newId("tsk", now);
    await insertTask(db, { id: taskId, orgId, owner, createdAt: now, expiresAt: now + TTL_MS });
    const abort = new AbortController();
    this.#running.set(taskId, abort);
    // A cancel asked through another process reaches this one through the row.
    const watch = setInterval(() => {
      void taskCancelRequested(db, taskId).then(
        (asked) => asked && abort.abort(),
        () => {},
      );
    }, POLL_MS);
    (watch as { unref?: () => void }).unref?.();
    const ended = async (outcome: {
      status: "completed" | "failed";
      result?: CallToolResult;
      error?: { code: number; message: string };
    }) => {
      clearInterval(watch);
      this.#running.delete(taskId);
      const status = abort.signal.aborted ? "cancelled" : outcome.status;
      await settleTask(db, taskId, { ...outcome, status }, clock.now());
    };
    void work(abort.signal)
      .then(
        (result) => ended({ status: "completed", result }),
        (error: unknown) =>
          ended({ status: "failed", error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
      )
      .catch((error: unknown) => log.error("task settle failed", { task: taskId, error: String(error) }));
    const at = new Date(now).toISOString();
    return { resultType: "task", taskId, status: "working", createdAt: at, lastUpdatedAt: at, ttlMs: TTL_MS, pollIntervalMs: POLL_MS };
  }

  async get(owner: string, taskId: string) {
    const task = await this.#find(owner, taskId);
    return {
      resultType: "complete",
      ...view(task),
      ...(task.result !== null && { result: task.result as CallToolResult }),
      ...(task.error !== null && { error: task.error }),
    };
  }

  /** Idempotent: a finished task stays as it ended. */
  async cancel(owner: string, taskId: string) {
    const { db, clock } = this.deps;
    if (!(await requestTaskCancel(db, taskId, owner, clock.now()))) throw unknownTask(taskId);
    this.#running.get(taskId)?.abort();
    return { resultType: "complete" };
  }

  async #find(owner: string, taskId: string): Promise<TaskRecord> {
    const task = await findTask(this.deps.db, taskId, owner, this.deps.clock.now());
    if (!task) throw unknownTask(taskId);
    return task;
  }
}

function view(task: TaskRecord) {
  const at = (ms: number) => new Date(ms).toISOString();
  return { taskId: task.id, status: task.status, createdAt: at(task.createdAt), lastUpdatedAt: at(task.updatedAt), ttlMs: TTL_MS };
}
