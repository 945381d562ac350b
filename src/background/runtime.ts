/**
 * The one background runtime: the work a server process does besides answering requests. Every
 * job is named in `serverTasks` — the agents scheduler and the regenerator, webhook and message
 * delivery, retention, new mail starting the inbox agent, scheduled backups — and `startBackground` is the one place that starts them
 * and stops them all (at shutdown, before the database closes). Entries start it through boot.ts.
 * Jobs coordinate across processes through the database only: leases (src/store/leases/leases.ts) and
 * row claims.
 */
import { SIGN_IN_WINDOW } from "../auth/sign-in.ts";
import type { AppDeps, BackgroundTask, RunningTask } from "../deps.ts";
import { notifySenders } from "../integrations/notify/senders.ts";
import { agentsRuntime } from "./agents.ts";
import { type BackupFiles, scheduledBackupsTask } from "./backups.ts";
import { messageDeliveryTask, webhookDeliveryTask } from "./delivery.ts";
import { mailTriggersTask } from "./mail-triggers.ts";
import { retentionTask } from "./retention.ts";

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
    mailTriggersTask,
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
