/**
 * The two outboxes as background jobs of the one outbox deliverer (src/background/outbox.ts):
 * webhooks (signed POSTs, src/webhooks/deliver.ts) and messages (mail, Slack, Teams,
 * src/integrations/notify/outbox.ts). Finished rows are forgotten by the retention pass
 * (src/store/retention.ts), not here.
 */
import type { BackgroundTask } from "../deps.ts";
import { deliverMessages, type NotifyDeps, type Senders } from "../integrations/notify/outbox.ts";
import { type DelivererOptions, deliverDue } from "../webhooks/deliver.ts";
import { outboxTask } from "./outbox.ts";

export function webhookDeliveryTask(options: DelivererOptions & { intervalMs?: number } = {}): BackgroundTask {
  return outboxTask({
    name: "webhook-deliverer",
    label: "webhook delivery",
    intervalMs: options.intervalMs ?? 1000,
    pass: (deps, signal) => deliverDue(deps, { ...options, signal }),
  });
}

export function messageDeliveryTask(senders: (deps: NotifyDeps) => Senders, options: { intervalMs?: number } = {}): BackgroundTask {
  let bound: Senders | null = null;
  return outboxTask({
    name: "message-deliverer",
    label: "message delivery",
    intervalMs: options.intervalMs ?? 2000,
    pass: (deps, signal) => {
      bound ??= senders(deps);
      return deliverMessages(deps, bound, { signal });
    },
  });
}
