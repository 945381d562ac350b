/** The sender of each channel of the message outbox (SPEC §18). */
import { emailSender } from "./mail.ts";
import type { Senders } from "./outbox.ts";

export const notifySenders = (): Senders => ({ email: emailSender });
