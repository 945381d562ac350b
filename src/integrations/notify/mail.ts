/**
 * Mail out (src/docs/notes/delivery.md) with nodemailer over SMTP_URL, from MAIL_FROM. The sender of the message
 * outbox for the `email` channel: a 4xx reply or a connection failure is transient (retried), a
 * 5xx reply is permanent (the address or the message is refused; trying again will not help).
 */
import type { Transporter } from "nodemailer";
import type { MailEnv } from "../../config.ts";
import { getUserById } from "../../store/auth/users.ts";
import type { ClaimedMessage } from "../../store/delivery/messages.ts";
import { getPrefs } from "../../store/delivery/notify.ts";
import { composeBriefingMail } from "./briefing-mail.ts";
import type { NotifyDeps, Sender, SendResult } from "./outbox.ts";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

const transports = new Map<string, Transporter>();

async function transportFor(mail: MailEnv): Promise<Transporter> {
  let transport = transports.get(mail.smtpUrl);
  if (!transport) {
    // Loaded on the first mail, not at start-up: a server without SMTP_URL never pays for it.
    const { createTransport } = await import("nodemailer");
    // Timeouts well inside the outbox's claim lease keep a stuck server from outliving a claim.
    transport = createTransport({ url: mail.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
    transports.set(mail.smtpUrl, transport);
  }
  return transport;
}

/** Sends one mail; never throws. */
export async function sendMail(mail: MailEnv, out: OutgoingMail): Promise<SendResult> {
  try {
    await (await transportFor(mail)).sendMail({ from: mail.from, ...out });
    return { ok: true };
  } catch (error) {
    const e = error as { responseCode?: number; response?: string; message?: string; code?: string };
    const reply = e.response ?? e.message ?? String(error);
    if (typeof e.responseCode === "number") {
      return { ok: false, error: `SMTP ${e.responseCode}: ${reply}`, permanent: e.responseCode >= 500 };
    }
    return { ok: false, error: `SMTP server not reached: ${e.code ? `${e.code} ` : ""}${reply}` };
  }
}

/** The mail of one outbox row: the day's briefing for its user, or a test mail. */
export const emailSender: Sender = async (deps, m) => {
  const mail = deps.config.mail;
  if (!mail) return { ok: false, error: "Mail is not configured (SMTP_URL and MAIL_FROM).", permanent: true };
  if (m.kind === "test") {
    const { to } = m.payload as { to: string };
    return sendMail(mail, {
      to,
      subject: "Crew test mail",
      text: `This is a test mail from Crew at ${deps.config.baseUrl}: mail delivery works.`,
    });
  }
  return sendBriefingMail(deps, mail, m);
};

async function sendBriefingMail(deps: NotifyDeps, mail: MailEnv, m: ClaimedMessage): Promise<SendResult> {
  const user = m.userId ? await getUserById(deps.db, m.userId) : null;
  // A deactivated user, or one who turned the mail off since it was queued, gets nothing.
  if (!user || user.deactivatedAt !== null || !user.email)
    return { ok: false, error: "Skipped: the user is deactivated.", permanent: true };
  if (!(await getPrefs(deps.db, user.id)).briefingEmail)
    return { ok: false, error: "Skipped: the user turned the briefing mail off.", permanent: true };
  const { date } = m.payload as { date: string };
  const now = deps.clock.now();
  const composed = await composeBriefingMail(deps.db, deps.config.baseUrl, user, date, now);
  if (!composed) return { ok: false, error: "Skipped: no briefing is stored for the user.", permanent: true };
  await deps.db.batch(composed.statements, "write");
  return sendMail(mail, { to: user.email, subject: composed.subject, text: composed.text, html: composed.html, headers: composed.headers });
}
