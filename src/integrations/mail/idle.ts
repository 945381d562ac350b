/**
 * Watching an IMAP mailbox for new mail with IDLE (RFC 2177), for the inbox agent's mail trigger
 * (src/docs/notes/connections.md): the folder opened read-only (EXAMINE, as for reading), then
 * IDLE; an untagged EXISTS with more messages than before (RFC 3501 §7.3.1) calls `onNew`. The
 * server ends an IDLE after at most 29 minutes (RFC 2177), so it is renewed every 10; a dropped
 * connection is made again after a pause. Nothing is read here: the run reads the mail.
 */
import type { OutboundPolicy } from "../../lib/outbound-policy.ts";
import { imapOptions, type MailboxSettings } from "./imap.ts";

export interface IdleWatch {
  /** Resolves once the first IDLE is running (tests wait for it). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const RENEW_MS = 10 * 60_000;
const RECONNECT_MS = 30_000;

export function watchMailbox(
  policy: OutboundPolicy,
  settings: MailboxSettings,
  onNew: () => void,
  onProblem: (reason: string) => void,
): IdleWatch {
  let stopped = false;
  let current: { logout(): Promise<void>; close(): void } | null = null;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

  const session = async () => {
    const { ImapFlow } = await import("imapflow");
    const client = new ImapFlow({ ...(await imapOptions(policy, settings)), maxIdleTime: RENEW_MS });
    current = client;
    client.on("error", (error: Error) => onProblem(String(error?.message ?? error)));
    client.on("exists", (data: { count: number; prevCount: number }) => {
      if (data.count > data.prevCount) onNew();
    });
    await client.connect();
    await client.mailboxOpen(settings.folder, { readOnly: true });
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    markReady();
    while (!stopped && client.usable) {
      const began = Date.now();
      await Promise.race([client.idle(), closed]);
      // A server that ends IDLE at once (or has none) is not asked again in a tight loop.
      if (Date.now() - began < 1000) await pause(5000);
    }
  };

  void (async () => {
    while (!stopped) {
      try {
        await session();
      } catch (error) {
        if (!stopped) onProblem(String((error as Error)?.message ?? error));
      }
      if (!stopped) await pause(RECONNECT_MS);
    }
  })();

  return {
    ready,
    async stop() {
      stopped = true;
      const client = current;
      if (client) await client.logout().catch(() => client.close());
    },
  };
}
