/**
 * Slack and Teams checked before they are trusted (issue 33): a bot token is verified with Slack's
 * `auth.test` on save, and one a fake Slack API on loopback (test/helpers/scripted-slack.ts; Slack's
 * API is out of reach) answers `invalid_auth` for is refused with that reason, over REST and on the
 * settings page, nothing stored; "Send a test message" posts to the standup channel and to the
 * Teams webhook (a recording receiver) now, and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../helpers/agents.ts";
import { type ScriptedSlack, startScriptedSlack } from "../helpers/scripted-slack.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";
import { signedIn } from "../web/client.ts";

let s: TestServer;
let slack: ScriptedSlack;
let teams: Receiver;
let call: ReturnType<typeof api>;
const TOKEN = "xoxb-1234567890-checked-token";

beforeAll(async () => {
  slack = await startScriptedSlack();
  teams = await startReceiver({ fallback: 202 });
  s = await startServer({ env: { SLACK_API_URL: slack.url } });
  const { key } = await s.userWithKey("operator", ["admin"]);
  call = api(s.url, key);
});
afterAll(async () => {
  await s.close();
  await slack.close();
  await teams.close();
});

describe("the fake Slack API answering invalid_auth", () => {
  it("refuses the token on save with Slack's reason, storing nothing (REST and the settings page)", async () => {
    slack.failures["auth.test"] = ["invalid_auth"];
    const refused = await call("/api/integrations/slack", { body: { botToken: TOKEN, channel: "#standup" } });
    expect(refused.status).toBe(400);
    expect(refused.json.issues).toEqual([
      {
        path: "botToken",
        message:
          "Slack refused this token (invalid_auth): the token is not valid (mistyped, revoked, or not a bot token of this workspace).",
      },
    ]);
    expect(refused.text).not.toContain(TOKEN);
    expect(await rows(s.db, "SELECT kind FROM org_channels")).toEqual([]);
    expect(slack.calls.at(-1)).toMatchObject({ method: "auth.test", token: TOKEN });

    slack.failures["auth.test"] = ["invalid_auth"];
    const { tab } = await signedIn(s, "operator", "owner");
    const csrf = await tab.csrfToken("/settings/slack");
    const page = await tab.request("/settings/slack", { form: { csrf, botToken: TOKEN, channel: "#standup", readChannels: "" } });
    expect(page.status).toBe(400);
    expect(page.text).toContain("Slack refused this token (invalid_auth)");
    expect(await rows(s.db, "SELECT kind FROM org_channels")).toEqual([]);
  });

  it("accepts a token Slack accepts, then sends a test message to the standup channel", async () => {
    const saved = await call("/api/integrations/slack", { body: { botToken: TOKEN, channel: "#standup" } });
    expect(saved.status).toBe(200);
    const tested = await call("/api/integrations/slack/test", { method: "POST" });
    expect(tested.json).toEqual({ ok: true });
    expect(slack.calls.at(-1)).toMatchObject({ method: "chat.postMessage", token: TOKEN, args: { channel: "#standup" } });
    expect(String(slack.calls.at(-1)?.args.text)).toContain("Crew test message");

    slack.failures["chat.postMessage"] = ["not_in_channel"];
    expect((await call("/api/integrations/slack/test", { method: "POST" })).json).toEqual({ ok: false, error: "Slack: not_in_channel" });

    // The button on the settings page runs the same operation.
    const { tab } = await signedIn(s, "operator", "owner");
    const csrf = await tab.csrfToken("/settings/slack");
    expect((await tab.request("/settings/slack")).text).toContain("Send a test message");
    const sent = await tab.request("/settings/slack/test", { form: { csrf } });
    expect(sent.status).toBe(303);
    expect((await tab.request("/settings/slack?done=tested")).text).toContain("Test message sent");
    slack.failures["chat.postMessage"] = ["channel_not_found"];
    const failed = await tab.request("/settings/slack/test", { form: { csrf } });
    expect(failed.status).toBe(502);
    expect(failed.text).toContain("The test message did not arrive: Slack: channel_not_found");
  });

  it("sends a Teams test message to the saved webhook", async () => {
    expect((await call("/api/integrations/teams/test", { method: "POST" })).json.ok).toBe(false);
    expect((await call("/api/integrations/teams", { body: { webhookUrl: teams.url } })).status).toBe(200);
    const before = teams.hits.length;
    expect((await call("/api/integrations/teams/test", { method: "POST" })).json).toEqual({ ok: true });
    expect(teams.hits.length).toBe(before + 1);
    expect(JSON.stringify(teams.hits.at(-1)?.json)).toContain("Crew test message");

    const { tab } = await signedIn(s, "operator", "owner");
    const csrf = await tab.csrfToken("/settings/notifications");
    const sent = await tab.request("/settings/notifications/teams/test", { form: { csrf } });
    expect(sent.status).toBe(303);
    expect(teams.hits.length).toBe(before + 2);
  });
});
