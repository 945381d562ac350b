/**
 * New mail in an IMAP mailbox starts the inbox agent through IDLE (RFC 2177), against a real
 * Dovecot on loopback and a scripted model server (a real model is out of reach): the watcher
 * holds an IDLE on the folder, a message written into the maildir makes Dovecot announce EXISTS,
 * and an inbox run with `trigger: "mail"` follows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imapWatchers } from "../../src/agents/mail-triggers.ts";
import { type Dovecot, startDovecot } from "../helpers/dovecot.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const PASSWORD = "idle-pass-Zt81";
let dovecot: Dovecot;
let model: ScriptedModel;
let s: TestServer;
let watchers: ReturnType<typeof imapWatchers>;

beforeAll(async () => {
  dovecot = await startDovecot("crew", PASSWORD);
  model = await startScriptedModel(() => ({ object: { summary: "Read the new mail" } }));
  s = await startServer({ env: modelEnv(model) });
}, 30_000);

afterAll(async () => {
  await watchers?.stop();
  await s?.close();
  await model?.close();
  await dovecot?.stop();
});

describe("IMAP IDLE starts the inbox agent (real Dovecot)", () => {
  it("a new message in the maildir → an inbox run with trigger mail", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    const added = await call("/api/integrations/sources", {
      body: {
        kind: "imap",
        host: dovecot.host,
        port: dovecot.port,
        tls: false,
        username: dovecot.user,
        password: PASSWORD,
        folder: "INBOX",
      },
    });
    expect(added.status).toBe(200);
    watchers = imapWatchers(s.deps);
    await watchers.reconcile();
    expect([...watchers.watching.keys()]).toEqual([s.org.id]);
    await watchers.watching.get(s.org.id)?.watch.ready;
    // IDLE is entered right after the folder opens; give the command a moment to reach the server.
    await new Promise((resolve) => setTimeout(resolve, 300));

    dovecot.deliver({ from: '"Ada" <ada@customer.example>', subject: "Urgent: order 77", body: "Please call me today." });
    let run: any = null;
    for (let i = 0; i < 150 && !run; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = ((await call("/api/agents/inbox/runs")).json.runs as any[]).find((r) => r.trigger === "mail" && r.status !== "running");
    }
    // Crew's summary of what it stored: Ada's mail makes her a contact (src/docs/notes/prompt-injection.md#caps).
    expect(run).toMatchObject({ status: "ok", trigger: "mail", summary: "Stored 1 contact." });
  }, 30_000);
});
