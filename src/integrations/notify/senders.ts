/** The sender of each channel of the message outbox (src/docs/notes/delivery.md). */
import { slackSender } from "../slack/sender.ts";
import { emailSender } from "./mail.ts";
import type { Senders } from "./outbox.ts";
import { teamsSender } from "./teams.ts";

export const notifySenders = (): Senders => ({ email: emailSender, slack: slackSender, teams: teamsSender });
