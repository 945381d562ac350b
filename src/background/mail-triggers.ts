/**
 * New mail starts the inbox agent (src/agents/mail-triggers.ts, src/docs/notes/connections.md), as a
 * background task named in src/background/runtime.ts: every MAIL_POLL_MS the holder of the
 * `mail-triggers` lease polls the connected mailboxes and keeps an IMAP IDLE watcher on each
 * organization's IMAP mailbox; a process that loses the lease stops its watchers.
 */
import { imapWatchers, MAIL_POLL_MS, pollConnectedMailboxes } from "../agents/mail-triggers.ts";
import type { BackgroundTask } from "../deps.ts";
import { startLoop } from "../lib/loop.ts";
import { randomSecret } from "../lib/random.ts";
import { releaseLease, takeLease } from "../store/leases/leases.ts";

export const MAIL_TRIGGERS_LEASE = "mail-triggers";

export const mailTriggersTask: BackgroundTask = {
  name: "mail-triggers",
  start(deps) {
    const holder = `mail-triggers-${randomSecret(10)}`;
    const watchers = imapWatchers(deps);
    const loop = startLoop(
      async () => {
        const now = deps.clock.now();
        // Held a little past one interval: the holder keeps it by polling; another process takes over when it stops.
        if (!(await takeLease(deps.db, MAIL_TRIGGERS_LEASE, holder, now, now + 2 * MAIL_POLL_MS))) return watchers.stop();
        await watchers.reconcile();
        if (!deps.config.google && !deps.config.microsoft) return;
        const started = await pollConnectedMailboxes(deps);
        if (started.length > 0) deps.log.info("new mail started inbox runs", { runs: started.length });
      },
      {
        intervalMs: MAIL_POLL_MS,
        overlap: "skip",
        unref: true,
        onError: (error) => deps.log.error("mail trigger poll failed", { error: String(error) }),
      },
    );
    void loop.run();
    return {
      async stop() {
        await loop.stop();
        await watchers.stop();
        await releaseLease(deps.db, MAIL_TRIGGERS_LEASE, holder).catch(() => {});
      },
    };
  },
};
