/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) for `crew_run_agent`: a client whose
 * request declares the extension gets a task at once (`resultType: "task"`), then polls
 * `tasks/get` (working → completed with the tool result inlined, or failed with an error) and may
 * `tasks/cancel`; a cancel before the model is called abandons the run. Tasks live in this
 * process's memory for an hour, visible only to the credential that created them; a tool error
 * is a completed task whose result has `isError`.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Clock } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** The tools that run as tasks for clients that declare the extension. */
export const TASK_TOOLS = new Set(["crew_run_agent"]);
const TTL_MS = 60 * 60 * 1000;
const POLL_MS = 1000;

type Status = "working" | "completed" | "failed" | "cancelled";
interface Task {
  owner: string;
  status: Status;
  createdAt: number;
  lastUpdatedAt: number;
  result?: CallToolResult;
  error?: { code: number; message: string };
  abort: AbortController;
}

export const tasksDeclared = (capabilities: { extensions?: Record<string, unknown> } | undefined) =>
  capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;

/** -32021: a task method from a client that did not declare the extension. */
export const missingCapability = () =>
  Object.assign(new Error(`Declare the ${TASKS_EXTENSION} extension in the request's client capabilities to use tasks.`), {
    code: -32021,
  });
const unknownTask = (id: string) => Object.assign(new Error(`Unknown task: ${id}.`), { code: -32602 });

export class TaskStore {
  readonly #tasks = new Map<string, Task>();
  constructor(private readonly clock: Clock) {}

  /** Starts `work` now and answers the CreateTaskResult. */
  start(owner: string, work: (signal: AbortSignal) => Promise<CallToolResult>) {
    const now = this.clock.now();
    for (const [id, t] of this.#tasks) if (now - t.createdAt > TTL_MS) this.#tasks.delete(id);
    const taskId = newId("tsk", now);
    const task: Task = { owner, status: "working", createdAt: now, lastUpdatedAt: now, abort: new AbortController() };
    this.#tasks.set(taskId, task);
    const ended = (status: Status, outcome: Pick<Task, "result" | "error">) =>
      this.#settle(task, task.abort.signal.aborted ? "cancelled" : status, outcome);
    void work(task.abort.signal).then(
      (result) => ended("completed", { result }),
      (error: unknown) => ended("failed", { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
    );
    return { resultType: "task", ...this.#view(taskId, task), pollIntervalMs: POLL_MS };
  }

  get(owner: string, taskId: string) {
    const task = this.#find(owner, taskId);
    return {
      resultType: "complete",
      ...this.#view(taskId, task),
      ...(task.result && { result: task.result }),
      ...(task.error && { error: task.error }),
    };
  }

  /** Idempotent: a finished task stays as it ended. */
  cancel(owner: string, taskId: string) {
    const task = this.#find(owner, taskId);
    if (task.status === "working") task.abort.abort();
    return { resultType: "complete" };
  }

  #find(owner: string, taskId: string): Task {
    const task = this.#tasks.get(taskId);
    if (!task || task.owner !== owner) throw unknownTask(taskId);
    return task;
  }

  #settle(task: Task, status: Status, outcome: Pick<Task, "result" | "error">) {
    if (task.status !== "working") return;
    Object.assign(task, { status, lastUpdatedAt: this.clock.now(), ...outcome });
  }

  #view(taskId: string, task: Task) {
    const at = (ms: number) => new Date(ms).toISOString();
    return { taskId, status: task.status, createdAt: at(task.createdAt), lastUpdatedAt: at(task.lastUpdatedAt), ttlMs: TTL_MS };
  }
}
