/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps every mail it accepts,
 * parsed with `mailparser`, and answers DATA with the reply codes a test scripts (e.g. 451 once).
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface MailReceiver {
  /** SMTP_URL for Crew. */
  url: string;
  mails: ParsedMail[];
  /** Reply codes for the next DATA commands, in order (2xx or absent: accept). */
  script: number[];
  /** Every DATA attempt, accepted or not. */
  attempts: number;
  close(): Promise<void>;
}

export async function startMailReceiver(): Promise<MailReceiver> {
  const receiver = { mails: [] as ParsedMail[], script: [] as number[], attempts: 0 } as MailReceiver;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      receiver.attempts += 1;
      const code = receiver.script.shift();
      simpleParser(stream)
        .then((mail) => {
          if (code && code >= 400) {
            const error = Object.assign(new Error(code < 500 ? "Try again later" : "Refused"), { responseCode: code });
            return callback(error);
          }
          receiver.mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  receiver.url = `smtp://127.0.0.1:${port}`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A header's value as sent (mailparser folds the List-* headers into one `list` object, so read the raw lines). */
export function headerLine(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.slice(line.indexOf(":") + 1).trim();
}
