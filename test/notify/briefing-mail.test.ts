/**
 * The briefing by mail (src/docs/notes/delivery.md) against a real SMTP server on loopback (`smtp-server`, mails
 * parsed with `mailparser`): the mail's subject, parts, links and RFC 8058 headers; one mail per
 * user per day; the one-click unsubscribe; a 4xx reply retried and delivered once; a restart
 * between attempts delivering once; regenerations never mailing; deactivated users getting nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { deliverMessages } from "../../src/integrations/notify/outbox.ts";
import { notifySenders } from "../../src/integrations/notify/senders.ts";
import { DAY } from "../../src/lib/clock.ts";
import { RETRY_DELAYS_MS } from "../../src/webhooks/deliver.ts";
import { seedActions, seedSuggestion } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { headerLine, type MailReceiver, startMailReceiver } from "../helpers/smtp.ts";
import { secondInstance } from "../helpers/webhooks.ts";

let s: TestServer;
let smtp: MailReceiver;
const senders = notifySenders();

beforeAll(async () => {
  smtp = await startMailReceiver();
  s = await startServer({ env: { SMTP_URL: smtp.url, MAIL_FROM: "Crew <crew@example.com>" } });
});
afterAll(async () => {
  await s.close();
  await smtp.close();
});

const briefingRun = () => runBuiltIn(s.deps, s.org, "briefing", { deliver: true });
const deliver = (deps = s.deps) => deliverMessages(deps, senders);
const countMessages = async (where = "1 = 1") =>
  Number((await s.db.one<{ n: number }>(`SELECT count(*) AS n FROM messages WHERE ${where}`))?.n);

describe("the briefing mail", () => {
  let userEmail: string;
  let text: string;
  let htmlPart: string;

  beforeAll(async () => {
    const user = await s.createUser("operator");
    userEmail = user.email;
    await seedActions(s, user.id, [
      ...Array.from({ length: 6 }, (_, i) => ({ title: `Call customer ${i}`, priority: "high" as const })),
      { title: "Renew <the> domain & certificate", priority: "critical" },
    ]);
    for (let i = 0; i < 4; i++) await seedSuggestion(s, "pipeline", `Suggestion ${i}`, "medium", s.clock.now() - i * 1000);
    await briefingRun();
    expect(await deliver()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    const mail = smtp.mails.at(-1)!;
    text = mail.text ?? "";
    htmlPart = String(mail.html);
  });

  it("has the dated subject, the sender, the recipient, a text and an HTML part", () => {
    const mail = smtp.mails.at(-1)!;
    const date = new Date(s.clock.now()).toISOString().slice(0, 10); // the organization's zone is UTC
    expect(mail.subject).toBe(`Your briefing — ${date}`);
    expect(mail.from?.value[0]?.address).toBe("crew@example.com");
    expect((mail.to as { value: { address: string }[] }).value[0]?.address).toBe(userEmail);
    expect(text).toContain("Here is your briefing for");
    expect(htmlPart).toContain("Here is your briefing for");
  });

  it("lists up to 5 top actions with one-click links, escaped, and the top 3 suggestions", () => {
    expect(text).toContain("Renew <the> domain & certificate"); // critical first
    expect(htmlPart).toContain("Renew &#60;the&#62; domain &#38; certificate");
    const actions = text.split("\n").filter((line) => line.startsWith("- ["));
    expect(actions).toHaveLength(5);
    const links = text.match(new RegExp(`${s.url}/a/[a-z2-7]{52}`, "g")) ?? [];
    expect(links).toHaveLength(15); // approve, done, dismiss for each pending action
    expect(new Set(links).size).toBe(15);
    for (const link of links) expect(htmlPart).toContain(link);
    expect(text).toContain("Suggestion 0");
    expect(text).toContain("Suggestion 2");
    expect(text).not.toContain("Suggestion 3");
    expect(text).toContain(`${s.url}/briefing`);
  });

  it("has no remote images, no scripts, and a phone-width viewport", () => {
    expect(htmlPart).not.toMatch(/<img|<script|src=|@import|url\(/i);
    expect(htmlPart).toContain('name="viewport"');
    expect(htmlPart).toContain("max-width:600px");
  });

  it("carries RFC 8058 one-click unsubscribe headers", () => {
    const mail = smtp.mails.at(-1)!;
    expect(headerLine(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(headerLine(mail, "List-Unsubscribe")).toMatch(new RegExp(`^<${s.url}/unsubscribe/[a-z2-7]{52}>$`));
  });

  it("is sent once a day: a second run the same day queues no second mail", async () => {
    const before = smtp.mails.length;
    await briefingRun();
    expect(await deliver()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    expect(smtp.mails.length).toBe(before);
  });

  it("is never sent by a regeneration after a write", async () => {
    s.clock.advance(DAY);
    const messages = await countMessages();
    await runBuiltIn(s.deps, s.org, "briefing");
    expect(await countMessages()).toBe(messages);
  });

  it("stops after the one-click unsubscribe POST (from any origin, as mail clients send it)", async () => {
    const url = headerLine(smtp.mails.at(-1)!, "List-Unsubscribe")!.slice(1, -1);
    const prefetch = await fetch(url); // a GET asks first and changes nothing
    expect(prefetch.status).toBe(200);
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://mail.example.net" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Briefing mail turned off");
    s.clock.advance(DAY);
    const before = await countMessages("channel = 'email'");
    await briefingRun();
    expect(await countMessages("channel = 'email'")).toBe(before);
  });
});

describe("delivery", () => {
  // One recipient at a time: everyone before has the mail off.
  beforeAll(async () => {
    await s.db.run(
      `INSERT INTO notification_prefs (user_id, briefing_email, briefing_slack, updated_at) SELECT id, 0, 0, 0 FROM users WHERE true
       ON CONFLICT (user_id) DO UPDATE SET briefing_email = 0, briefing_slack = 0, updated_at = 0`,
    );
  });

  it("retries a 4xx reply with backoff and delivers once", async () => {
    await s.createUser("operator");
    s.clock.advance(DAY);
    smtp.script.push(451);
    const [mails, attempts] = [smtp.mails.length, smtp.attempts];
    await briefingRun();
    expect(await deliver()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    expect(await deliver()).toEqual({ delivered: 0, retrying: 0, failed: 0 }); // not due yet
    s.clock.advance(RETRY_DELAYS_MS[0]);
    expect(await deliver()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    expect(smtp.attempts - attempts).toBe(2);
    expect(smtp.mails.length - mails).toBe(1);
  });

  it("fails at once on a 5xx reply, with the reply in the log", async () => {
    s.clock.advance(DAY);
    smtp.script.push(550);
    await briefingRun();
    expect(await deliver()).toEqual({ delivered: 0, retrying: 0, failed: 1 });
    const row = await s.db.one<{ last_error: string }>("SELECT last_error FROM messages WHERE status = 'failed' ORDER BY id DESC");
    expect(row?.last_error).toMatch(/^SMTP 550/);
  });

  it("survives a restart between attempts: another process delivers once", async () => {
    s.clock.advance(DAY);
    smtp.script.push(421);
    const mails = smtp.mails.length;
    await briefingRun();
    expect(await deliver()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    const restarted = await secondInstance(s);
    try {
      s.clock.advance(RETRY_DELAYS_MS[0]);
      const [a, b] = await Promise.all([deliver(restarted), deliver(restarted)]);
      expect(a.delivered + b.delivered).toBe(1);
      expect(await deliver()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      expect(smtp.mails.length - mails).toBe(1);
    } finally {
      restarted.close();
    }
  });

  it("sends nothing to a deactivated user", async () => {
    const gone = await s.createUser("operator");
    await s.db.run("UPDATE users SET deactivated_at = ? WHERE id = ?", [s.clock.now(), gone.id]);
    s.clock.advance(DAY);
    await briefingRun();
    expect(await countMessages(`user_id = '${gone.id}'`)).toBe(0);
  });
});
