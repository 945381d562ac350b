/**
 * `crew notify test --email E`: one test mail through SMTP_URL, sent now and directly (not through
 * the outbox, so the answer — delivered, or the server's exact reply — is printed here; like
 * `crew model test`, a check of the settings rather than a message people wait for).
 */

import { loadConfig } from "../config.ts";
import { sendMail } from "../integrations/notify/mail.ts";
import { type CliIo, CommandError, type Env, type Flags, parseEmail, printJson, UsageError } from "./support.ts";

export async function notifyTestFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  if (typeof flags.email !== "string") throw new UsageError("--email needs an address such as you@example.com");
  const to = parseEmail(flags.email);
  const config = loadConfig(env);
  if (!config.mail) throw new CommandError("mail is not configured: set SMTP_URL and MAIL_FROM");
  const result = await sendMail(config.mail, {
    to,
    subject: "Crew test mail",
    text: `This is a test mail from Crew at ${config.baseUrl}: mail delivery works.`,
  });
  if (flags.json) printJson(io, result);
  else if (result.ok) io.out(`Test mail sent to ${to} through ${new URL(config.mail.smtpUrl).host}.\n`);
  else io.err(`test mail failed: ${result.error}\n`);
  return result.ok ? 0 : 1;
}
