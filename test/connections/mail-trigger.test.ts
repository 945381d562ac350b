/**
 * New mail starts the inbox agent (src/docs/notes/connections.md), time injected: the poll of the
 * connected mailboxes (fake Google on loopback, named so) finds a new mail and starts one inbox
 * run with `trigger: "mail"`; two more mails within the 5-minute debounce start no run until it
 * is over, then one run reads both; bulk mail starts nothing; `runOnNewMail: false` stops it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollConnectedMailboxes } from "../../src/agents/mail-triggers.ts";
import { runModelAgent } from "../../src/agents/model-run.ts";
import { MINUTE } from "../../src/lib/clock.ts";
import { connectAccount, signedInTab } from "../helpers/connect-account.ts";
import { type FakeGoogle, startFakeGoogle } from "../helpers/fake-google.ts";
import { untrustedData } from "../helpers/run-data.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let google: FakeGoogle;
let model: ScriptedModel;
let s: TestServer;
let key: string;

const mailOf = (text: string | undefined) => untrustedData(text, "mail") ?? [];

beforeAll(async () => {
  google = await startFakeGoogle();
  model = await startScriptedModel((r) => ({ object: { summary: `${mailOf(r.messages[0]?.text ?? "").length} new messages` } }));
  s = await startServer({ env: { ...google.env, ...modelEnv(model) } });
  const owner = await s.createUser("operator", "trigger.owner@example.org", "owner");
  key = await s.createKey(owner, ["admin"]);
  await connectAccount(await signedInTab(s, owner.email), "google", { mail: true });
  // The first read (the schedule's) sets the mailbox's cursor.
  google.deliver({
    from: "old@customer.example",
    subject: "Old",
    body: "Old mail.",
    messageId: "old.1@customer.example",
    date: new Date(s.clock.now()),
  });
  await runModelAgent(s.deps, s.org, "inbox");
}, 30_000);

afterAll(async () => {
  await s?.close();
  await model?.close();
  await google?.close();
});

const runs = async () => (await api(s.url, key)("/api/agents/inbox/runs?limit=50")).json.runs as any[];
const mail = (n: number, headers?: Record<string, string>) =>
  google.deliver({
    from: `"Buyer ${n}" <buyer${n}@customer.example>`,
    subject: `Question ${n}`,
    body: `Question ${n}?`,
    messageId: `q${n}@customer.example`,
    date: new Date(s.clock.now()),
    ...(headers ? { headers } : {}),
  });

describe("new mail starts the inbox agent", () => {
  it("an unchanged mailbox starts nothing and costs one request", async () => {
    const calls = google.apiCalls.length;
    expect(await pollConnectedMailboxes(s.deps)).toEqual([]);
    expect(google.apiCalls.slice(calls).map((c) => c.path)).toEqual(["/gmail/v1/users/me/history"]);
  });

  it("a new mail starts one run with trigger mail; two more within the debounce start one run after it", async () => {
    s.clock.advance(MINUTE);
    mail(1);
    const first = await pollConnectedMailboxes(s.deps);
    expect(first).toHaveLength(1);
    expect((await runs()).find((r) => r.id === first[0])).toMatchObject({ status: "ok", trigger: "mail", summary: "Stored 1 contact." });

    s.clock.advance(MINUTE);
    mail(2);
    mail(3);
    expect(await pollConnectedMailboxes(s.deps)).toEqual([]);
    s.clock.advance(MINUTE);
    expect(await pollConnectedMailboxes(s.deps)).toEqual([]);
    s.clock.advance(4 * MINUTE);
    const second = await pollConnectedMailboxes(s.deps);
    expect(second).toHaveLength(1);
    expect((await runs()).find((r) => r.id === second[0])).toMatchObject({ trigger: "mail", summary: "Stored 2 contacts." });
  });

  it("bulk mail starts nothing", async () => {
    s.clock.advance(10 * MINUTE);
    mail(4, { "List-Unsubscribe": "<mailto:unsubscribe@news.example>" });
    expect(await pollConnectedMailboxes(s.deps)).toEqual([]);
  });

  it("switched off for the agent: no run", async () => {
    const off = await api(s.url, key)("/api/agents/inbox", { method: "PATCH", body: { runOnNewMail: false } });
    expect(off.status).toBe(200);
    expect(off.json.runOnNewMail).toBe(false);
    s.clock.advance(10 * MINUTE);
    mail(5);
    expect(await pollConnectedMailboxes(s.deps)).toEqual([]);
    const on = await api(s.url, key)("/api/agents/inbox", { method: "PATCH", body: { runOnNewMail: true } });
    expect(on.json.runOnNewMail).toBe(true);
    expect(await pollConnectedMailboxes(s.deps)).toHaveLength(1);
  });
});
