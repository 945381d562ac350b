/**
 * The inbox agent reading connected mailboxes (src/docs/notes/connections.md): Gmail through the
 * fake Google and Outlook through the fake Microsoft on loopback (named so; the real ones are out
 * of reach), a scripted model server in place of a model. Evidence `ref` is the Message-ID and
 * `url` opens the message at the provider; an unchanged mailbox costs one provider request;
 * an expired access token is refreshed without the person; a revoked grant raises the critical
 * `google` alert, which a reconnect clears; a 429 is a warning with a backoff.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runModelAgent } from "../../src/agents/model-run.ts";
import { HOUR, MINUTE } from "../../src/lib/clock.ts";
import { connectAccount, signedInTab } from "../helpers/connect-account.ts";
import { type FakeGoogle, startFakeGoogle } from "../helpers/fake-google.ts";
import { type FakeMicrosoft, startFakeMicrosoft } from "../helpers/fake-microsoft.ts";
import { untrustedData } from "../helpers/run-data.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let google: FakeGoogle;
let microsoft: FakeMicrosoft;
let model: ScriptedModel;
let s: TestServer;
let key: string;

const mailOf = (text: string | undefined) => untrustedData(text, "mail") ?? [];

beforeAll(async () => {
  google = await startFakeGoogle();
  microsoft = await startFakeMicrosoft();
  // One follow-up per mail it is handed, citing that mail.
  model = await startScriptedModel((r) => {
    const mail = mailOf(r.messages[0]?.text ?? "");
    return {
      object: {
        summary: `${mail.length} new messages`,
        actions: mail.map((m: { handle: string; subject: string }) => ({
          title: `Answer: ${m.subject}`,
          priority: "high",
          type: "follow_up",
          evidence: [m.handle],
        })),
      },
    };
  });
  s = await startServer({ env: { ...google.env, ...microsoft.env, ...modelEnv(model) } });
  const ada = await s.createUser("operator", "ada.inbox@example.org", "owner");
  const grace = await s.createUser("operator", "grace.inbox@example.org", "member");
  key = await s.createKey(ada, ["admin"]);
  await connectAccount(await signedInTab(s, ada.email), "google", { mail: true });
  await connectAccount(await signedInTab(s, grace.email), "microsoft", { mail: true });
}, 60_000);

afterAll(async () => {
  await s?.close();
  await model?.close();
  await google?.close();
  await microsoft?.close();
});

const actions = async () => (await api(s.url, key)("/api/mcp/actions?limit=50")).json.actions as any[];
const alerts = () =>
  s.db.all<{ service: string; severity: string; message: string; resolved_at: number | null }>(
    "SELECT service, severity, message, resolved_at FROM integration_alerts WHERE org_id = ? ORDER BY flagged_at, id",
    [s.org.id],
  );

describe("inbox run on connected mailboxes (fake Google and Microsoft)", () => {
  it("reads Gmail and Outlook: evidence ref is the Message-ID, url opens the provider", async () => {
    const at = s.clock.now() - HOUR;
    google.deliver({
      from: '"Ada Customer" <buyer@customer.example>',
      subject: "Engine pricing",
      body: "What does the engine cost?",
      messageId: "pricing.1@customer.example",
      date: new Date(at),
    });
    microsoft.deliver({
      from: { name: "Bob", address: "bob@partner.example" },
      subject: "Contract draft",
      body: "Draft attached.",
      messageId: "contract.7@partner.example",
      received: new Date(at + MINUTE),
      headers: { "List-Id": "<deals.partner.example>" },
    });

    const run = await runModelAgent(s.deps, s.org, "inbox");
    expect(run).toMatchObject({ status: "ok", summary: expect.stringContaining("2") });
    const sent = mailOf(model.requests.at(-1)?.messages[0]?.text ?? "");
    expect(sent.map((m: { subject: string }) => m.subject).sort()).toEqual(["Contract draft", "Engine pricing"]);

    const list = await actions();
    const pricing = list.find((a) => a.title === "Answer: Engine pricing");
    expect(pricing.evidence).toEqual([
      expect.objectContaining({
        kind: "mail",
        ref: "pricing.1@customer.example",
        url: expect.stringMatching(/^https:\/\/mail\.google\.com\/mail\/u\/ada%40example\.org\/#all\/18c/),
      }),
    ]);
    const contract = list.find((a) => a.title === "Answer: Contract draft");
    expect(contract.evidence).toEqual([
      expect.objectContaining({
        kind: "mail",
        ref: "contract.7@partner.example",
        url: expect.stringMatching(/^https:\/\/outlook\.office365\.com\/owa\/\?ItemID=/),
      }),
    ]);
  });

  it("an unchanged mailbox costs one provider request each, and no model call", async () => {
    const before = { google: google.apiCalls.length, microsoft: microsoft.apiCalls.length, model: model.requests.length };
    s.clock.advance(10 * MINUTE);
    const run = await runModelAgent(s.deps, s.org, "inbox");
    expect(run.status).toBe("skipped");
    expect(google.apiCalls.slice(before.google).map((c) => c.path)).toEqual(["/gmail/v1/users/me/history"]);
    expect(microsoft.apiCalls.slice(before.microsoft).map((c) => c.path)).toEqual(["/v1.0/me/mailFolders/inbox/messages/delta"]);
    expect(model.requests.length).toBe(before.model);
  });

  it("refreshes an expired access token without the person", async () => {
    s.clock.advance(2 * HOUR);
    google.deliver({
      from: "carol@customer.example",
      subject: "Follow-up",
      body: "Any news?",
      messageId: "follow.2@customer.example",
      date: new Date(s.clock.now()),
    });
    const refreshes = google.tokenCalls.filter((t) => t.grant === "refresh_token").length;
    const run = await runModelAgent(s.deps, s.org, "inbox");
    expect(run.status).toBe("ok");
    expect(google.tokenCalls.filter((t) => t.grant === "refresh_token" && t.status === 200).length).toBe(refreshes + 1);
    expect((await actions()).map((a) => a.title)).toContain("Answer: Follow-up");
  });

  it("a revoked grant raises the critical google alert with the fix; a reconnect clears it", async () => {
    google.revokeRefreshTokens();
    google.expireAccessTokens();
    s.clock.advance(2 * HOUR);
    await runModelAgent(s.deps, s.org, "inbox");
    const open = (await alerts()).filter((a) => a.service === "google" && a.resolved_at === null);
    expect(open).toEqual([
      {
        service: "google",
        severity: "critical",
        message: "Google access was revoked: reconnect on /settings/connections (ada@example.org).",
        resolved_at: null,
      },
    ]);
    // Shown once however often it fails.
    await runModelAgent(s.deps, s.org, "inbox");
    expect((await alerts()).filter((a) => a.service === "google" && a.resolved_at === null)).toHaveLength(1);

    await connectAccount(await signedInTab(s, "ada.inbox@example.org"), "google", { mail: true });
    expect((await alerts()).filter((a) => a.service === "google" && a.resolved_at === null)).toEqual([]);
  });

  it("a 429 is a warning with a backoff: no call to Graph until it is over, then the warning clears", async () => {
    microsoft.failNext(429, 1, "120");
    microsoft.deliver({
      from: { address: "dan@partner.example" },
      subject: "Invoice",
      body: "Invoice 7.",
      messageId: "inv.7@partner.example",
      received: new Date(s.clock.now()),
    });
    await runModelAgent(s.deps, s.org, "inbox");
    const warning = (await alerts()).filter((a) => a.service === "microsoft" && a.resolved_at === null);
    expect(warning).toEqual([expect.objectContaining({ severity: "warning", message: expect.stringContaining("HTTP 429") })]);
    const calls = microsoft.apiCalls.length;
    s.clock.advance(MINUTE);
    await runModelAgent(s.deps, s.org, "inbox");
    expect(microsoft.apiCalls.length).toBe(calls);
    s.clock.advance(2 * MINUTE);
    await runModelAgent(s.deps, s.org, "inbox");
    expect(microsoft.apiCalls.length).toBeGreaterThan(calls);
    expect((await alerts()).filter((a) => a.service === "microsoft" && a.resolved_at === null)).toEqual([]);
    expect((await actions()).map((a) => a.title)).toContain("Answer: Invoice");
  });
});
