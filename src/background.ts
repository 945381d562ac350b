/**
 * Work the server process does besides answering requests: the agents scheduler, the webhook
 * deliverer. Each concern exports a `BackgroundTask` (src/deps.ts); `serverTasks` is the one place they are
 * named. Entries start them after the app is built and stop them before the database closes.
 * Tasks coordinate across processes through the database only (leases, row locks).
 */
import { type BackupFiles, scheduledBackupsTask } from "./agents/backups.ts";
import { agentsRuntime } from "./agents/runtime.ts";
import { SIGN_IN_WINDOW } from "./auth/sign-in.ts";
import type { AppDeps, BackgroundTask, RunningTask } from "./deps.ts";
import { messageDeliveryTask } from "./integrations/notify/outbox.ts";
import { notifySenders } from "./integrations/notify/senders.ts";
import { retentionTask } from "./operations/retention-task.ts";
import { webhookDeliveryTask } from "./webhooks/deliver.ts";

/** What the runtime provides that web standards do not (boot.ts passes them in). */
export interface Platform {
  /** Listing and deleting backup files, for scheduled backups (BACKUP_DIR). */
  backupFiles?: BackupFiles;
}

export function serverTasks(platform: Platform = {}): BackgroundTask[] {
  return [
    webhookDeliveryTask(),
    messageDeliveryTask(notifySenders),
    agentsRuntime,
    retentionTask({ signInWindowMs: SIGN_IN_WINDOW }),
    ...(platform.backupFiles ? [scheduledBackupsTask(platform.backupFiles)] : []),
  ];
}

export function startBackground(deps: AppDeps, tasks: BackgroundTask[]): RunningTask {
  const running = tasks.map((task) => {
    deps.log.debug("background task started", { task: task.name });
    return task.start(deps);
  });
  return {
    async stop() {
      await Promise.all(running.map((r) => r.stop()));
    },
  };
}
