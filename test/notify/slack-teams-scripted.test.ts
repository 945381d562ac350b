/**
 * Slack and Teams delivery (src/docs/notes/delivery.md) against scripted APIs on loopback: a scripted Slack Web API
 * (test/helpers/scripted-slack.ts) and a recording HTTP receiver standing in for a Teams Workflows
 * webhook. The connection endpoints (owners/admin, token never returned), the standup post with
 * the bot token and its interventions, briefing DMs mapped by users.lookupByEmail (unknown members
 * skipped), `invalid_auth` raising the `slack` alert and a later success clearing it, the morning
 * standup as an Adaptive Card to Teams.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { deliverMessages } from "../../src/integrations/notify/outbox.ts";
import { notifySenders } from "../../src/integrations/notify/senders.ts";
import { DAY, HOUR } from "../../src/lib/clock.ts";
import { setTimeZone } from "../helpers/agents.ts";
import { seedActions } from "../helpers/rest.ts";
import { type ScriptedSlack, startScriptedSlack } from "../helpers/scripted-slack.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";
import { signedIn } from "../web/client.ts";

let s: TestServer;
let slack: ScriptedSlack;
let teams: Receiver;
let call: ReturnType<typeof api>;
const senders = notifySenders();
const TOKEN = "xoxb-1234567890-scripted-token";

beforeAll(async () => {
  slack = await startScriptedSlack();
  teams = await startReceiver({ fallback: 202 });
  s = await startServer({ env: { SLACK_API_URL: slack.url } });
  await setTimeZone(s.db, s.org.id, "UTC");
  const { key } = await s.userWithKey("operator", ["admin"]);
  call = api(s.url, key);
});
afterAll(async () => {
  await s.close();
  await slack.close();
  await teams.close();
});

const deliver = () => deliverMessages(s.deps, senders);
const openSlackAlerts = async () =>
  Number(
    (await s.db.one<{ n: number }>("SELECT count(*) AS n FROM integration_alerts WHERE service = 'slack' AND resolved_at IS NULL"))?.n,
  );
/** 08:00 UTC of the next day: a morning standup slot. */
function nextMorning() {
  const now = s.clock.now();
  s.clock.set(Math.floor(now / DAY) * DAY + DAY + 8 * HOUR);
}

describe("the Slack connection", () => {
  it("connects with an admin key, never shows the token, and refuses bad input storing nothing", async () => {
    const bad = await call("/api/integrations/slack", { body: { botToken: "nope", channel: "#standup" } });
    expect(bad.status).toBe(400);
    expect((await call("/api/integrations/slack")).json.connected).toBe(false);
    const res = await call("/api/integrations/slack", { body: { botToken: TOKEN, channel: "#standup", readChannels: ["C0123456789"] } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ connected: true, channel: "#standup", readChannels: ["C0123456789"] });
    const shown = await call("/api/integrations/slack");
    expect(shown.text).not.toContain(TOKEN);
    const stored = await s.db.one<{ config: string }>("SELECT config FROM org_channels WHERE kind = 'slack'");
    expect(stored?.config).not.toContain(TOKEN); // sealed at rest
  });

  it("refuses members signed in on the web (owners only)", async () => {
    const { tab } = await signedIn(s);
    const res = await tab.request("/api/integrations/slack", { method: "GET", headers: {} });
    expect([401, 403]).toContain(res.status);
    const page = await tab.request("/settings/slack");
    expect(page.status).toBe(403);
  });
});

describe("posting to Slack", () => {
  it("posts the standup to the channel with the bot token, interventions listed, in Block Kit", async () => {
    const user = await s.createUser();
    await seedActions(s, user.id, [{ title: "Fix the <billing> outage", priority: "critical" }]);
    nextMorning();
    await runBuiltIn(s.deps, s.org, "standup", { deliver: true });
    const before = slack.calls.length;
    expect(await deliver()).toMatchObject({ delivered: 1, failed: 0 });
    const post = slack.calls.slice(before).find((c) => c.method === "chat.postMessage")!;
    expect(post.token).toBe(TOKEN);
    expect(post.args.channel).toBe("#standup");
    const blocks = JSON.stringify(post.args.blocks);
    expect(blocks).toContain("Morning standup");
    expect(blocks).toContain("Fix the &lt;billing&gt; outage");
  });

  it("never posts for a regeneration after a write", async () => {
    const before = Number((await s.db.one<{ n: number }>("SELECT count(*) AS n FROM messages"))?.n);
    await runBuiltIn(s.deps, s.org, "standup");
    expect(Number((await s.db.one<{ n: number }>("SELECT count(*) AS n FROM messages"))?.n)).toBe(before);
  });

  it("DMs the briefing to people who turned it on, found by users.lookupByEmail; an unknown one is skipped, said in the log", async () => {
    const { user: found, tab } = await signedIn(s);
    const { user: unknown, tab: other } = await signedIn(s);
    for (const t of [tab, other]) await t.request("/api/me/notifications", { method: "PATCH", json: { briefingSlack: true } });
    slack.members[found.email] = "U0FOUND01";
    nextMorning();
    await runBuiltIn(s.deps, s.org, "briefing", { deliver: true });
    const before = slack.calls.length;
    await deliver();
    const calls = slack.calls.slice(before);
    expect(calls.filter((c) => c.method === "users.lookupByEmail").map((c) => c.args.email)).toEqual(
      expect.arrayContaining([found.email, unknown.email]),
    );
    const dms = calls.filter((c) => c.method === "chat.postMessage");
    expect(dms.map((c) => c.args.channel)).toEqual(["U0FOUND01"]);
    expect(JSON.stringify(dms[0]?.args.blocks)).toContain("Your briefing");
    const skipped = await s.db.one<{ last_error: string }>("SELECT last_error FROM messages WHERE user_id = ? AND channel = 'slack'", [
      unknown.id,
    ]);
    expect(skipped?.last_error).toBe(`Skipped: no Slack member has the email ${unknown.email}.`);
    expect(await openSlackAlerts()).toBe(0); // a person missing from Slack is not a broken connection
  });

  it("raises the slack alert on invalid_auth, and clears it with the next success", async () => {
    slack.failures["chat.postMessage"] = ["invalid_auth"];
    nextMorning();
    await runBuiltIn(s.deps, s.org, "standup", { deliver: true });
    expect(await deliver()).toMatchObject({ delivered: 0, failed: 1 });
    expect(await openSlackAlerts()).toBe(1);
    const alert = await s.db.one<{ severity: string; message: string }>(
      "SELECT severity, message FROM integration_alerts WHERE service = 'slack'",
    );
    expect(alert).toMatchObject({ severity: "critical" });
    expect(alert?.message).toContain("invalid_auth");

    s.clock.advance(6 * HOUR); // evening
    await runBuiltIn(s.deps, s.org, "standup", { deliver: true, mode: "evening" });
    expect(await deliver()).toMatchObject({ delivered: 1 });
    expect(await openSlackAlerts()).toBe(0);
  });
});

describe("Teams", () => {
  it("posts the morning standup as an Adaptive Card to the saved webhook (evening: nothing)", async () => {
    const saved = await call("/api/integrations/teams", { body: { webhookUrl: teams.url } });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ connected: true });
    expect((await call("/api/integrations/teams")).text).not.toContain(teams.url);
    nextMorning();
    await runBuiltIn(s.deps, s.org, "standup", { deliver: true });
    await deliver();
    expect(teams.hits).toHaveLength(1);
    const card = teams.hits[0]!.json;
    expect(card.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card.attachments[0].content.type).toBe("AdaptiveCard");
    expect(JSON.stringify(card)).toContain("Morning standup");

    s.clock.advance(8 * HOUR);
    await runBuiltIn(s.deps, s.org, "standup", { deliver: true, mode: "evening" });
    await deliver();
    expect(teams.hits).toHaveLength(1);
  });

  it("refuses a private address when ALLOW_PRIVATE_TARGETS is off", async () => {
    const strict = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
    try {
      const { key } = await strict.userWithKey("operator", ["admin"]);
      const res = await api(strict.url, key)("/api/integrations/teams", { body: { webhookUrl: "http://127.0.0.1:9/hook" } });
      expect(res.status).toBe(400);
      expect(await strict.db.one("SELECT 1 AS x FROM org_channels")).toBeNull();
    } finally {
      await strict.close();
    }
  });

  it("is refused to a member on the settings page", async () => {
    const { tab } = await signedIn(s);
    const csrf = await tab.csrfToken("/settings/notifications");
    const res = await tab.request("/settings/notifications/teams", { form: { csrf, webhookUrl: "https://example.com/x" } });
    expect(res.status).toBe(403);
  });
});
