/**
 * Failing agents pause themselves (issue 25): three scheduled runs of one agent in a row ending in
 * error pause it — not scheduled, the dashboard summary and a critical alert say why — and an
 * owner resumes it over REST (POST /api/agents/{id}/resume), with `crew agents resume`, or by a
 * successful Run now on /agents/{id}. Injected clock; the model is a scripted server on loopback.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createScheduler } from "../../src/agents/scheduler.ts";
import { HOUR } from "../../src/lib/clock.ts";
import { rows } from "../helpers/agents.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { databaseEnv } from "../helpers/database.ts";
import { fastKey } from "../helpers/rest.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  s = model = undefined;
});

const invalid = () => ({ object: { summary: "" } });
const fine = () => ({ object: { summary: "All good again." } });
const START = Date.parse("2026-11-23T12:00:00Z");

async function setup() {
  model = await startScriptedModel(invalid);
  s = await startServer({ env: modelEnv(model) });
  const owner = await s.createUser("operator", "owner-pause@example.com", "owner");
  const member = await s.createUser("operator", "member-pause@example.com", "member");
  const ownerCall = api(s.url, await fastKey(s, owner, ["admin", "read"]));
  const memberCall = api(s.url, await fastKey(s, member, ["admin", "read"]));
  // growth every hour, so three slots follow each other.
  expect((await ownerCall("/api/agents/growth", { method: "PATCH", body: { schedule: "0 * * * *" } })).status).toBe(200);
  const scheduler = createScheduler(s.deps, { holder: "pause-test" });
  let hour = 0;
  const nextSlot = async () => {
    s!.clock.set(START + hour * HOUR);
    // Something new for every slot: a run whose inputs did not change since the last successful one
    // is skipped without a model call (src/docs/notes/model.md), and this test is about failures.
    const posted = await ownerCall("/api/mcp/contacts", {
      method: "POST",
      body: { name: `Lead ${hour}`, email: `lead${hour}@example.com`, relationship: "warm" },
    });
    expect(posted.status).toBeLessThan(300);
    hour++;
    return (await scheduler.tick()).ran.filter((r) => r.agentId === "growth").map((r) => r.status);
  };
  const growth = async () => (await ownerCall("/api/mcp/agents")).json.agents.find((a: { id: string }) => a.id === "growth");
  const openPauseAlerts = () =>
    rows(s!.db, "SELECT severity, message FROM integration_alerts WHERE service = 'agents' AND resolved_at IS NULL");
  return { s, model, owner, ownerCall, memberCall, scheduler, nextSlot, growth, openPauseAlerts };
}

describe("failing agents pause themselves", () => {
  it("pauses after 3 failed scheduled runs in a row (a success in between resets); not scheduled; resumed over REST by an owner only", async () => {
    const t = await setup();
    expect(await t.nextSlot()).toEqual(["error"]);
    expect(await t.nextSlot()).toEqual(["error"]);
    t.model.script(fine);
    expect(await t.nextSlot()).toEqual(["ok"]);
    t.model.script(invalid);
    expect(await t.nextSlot()).toEqual(["error"]);
    expect(await t.nextSlot()).toEqual(["error"]);
    expect((await t.growth()).paused).toBe(false);
    expect(await t.nextSlot()).toEqual(["error"]);

    const paused = await t.growth();
    expect(paused).toMatchObject({ paused: true, health: "error" });
    expect(paused.summary).toMatch(/^Paused after 3 scheduled runs in a row failed; the last: /);
    expect(await t.openPauseAlerts()).toEqual([{ severity: "critical", message: expect.stringMatching(/^growth: Paused after 3/) }]);
    // GET /api/agents/{id} says why too (the agent page reads it there).
    expect((await t.ownerCall("/api/agents/growth")).json.pausedReason).toBe(paused.summary);
    const dashboard = (await t.ownerCall("/api/mcp/agents")).json;
    expect(dashboard.integrationAlerts).toContainEqual(expect.objectContaining({ service: "agents", severity: "critical" }));

    // Not scheduled while paused, whatever the slot.
    const runsOfGrowth = () => rows(t.s.db, "SELECT count(*) AS n FROM agent_runs WHERE agent_id = 'growth'");
    const before = await runsOfGrowth();
    expect(await t.nextSlot()).toEqual([]);
    expect(await t.nextSlot()).toEqual([]);
    expect(await runsOfGrowth()).toEqual(before);

    const refused = await t.memberCall("/api/agents/growth/resume", { method: "POST" });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("forbidden");
    expect((await t.growth()).paused).toBe(true);

    expect((await t.ownerCall("/api/agents/growth/resume", { method: "POST" })).json).toEqual({ id: "growth", resumed: true });
    expect((await t.growth()).paused).toBe(false);
    expect((await t.ownerCall("/api/agents/growth")).json.pausedReason).toBeNull();
    expect(await t.openPauseAlerts()).toEqual([]);
    expect(await t.nextSlot()).toEqual(["error"]); // scheduled again; the streak starts over
    expect((await t.growth()).paused).toBe(false);
    await t.scheduler.stop();
  });

  it("`crew agents resume` and a successful Run now resume it", async () => {
    const t = await setup();
    for (let i = 0; i < 3; i++) expect(await t.nextSlot()).toEqual(["error"]);
    expect((await t.growth()).paused).toBe(true);
    const cli = await runCliInProcess(["agents", "resume", "growth"], { ...databaseEnv(t.s.config.databaseUrl), LOG_LEVEL: "silent" });
    expect(cli).toMatchObject({ code: 0, stdout: "growth: resumed; it runs again from its next scheduled slot.\n" });
    expect((await t.growth()).paused).toBe(false);

    for (let i = 0; i < 3; i++) expect(await t.nextSlot()).toEqual(["error"]);
    expect((await t.growth()).paused).toBe(true);
    const tab = new Browserish(t.s.url);
    await tab.signIn(t.owner.email);
    const page = await tab.request("/agents/growth");
    expect(page.text).toContain("<strong>Paused.</strong>");
    expect(page.text).toContain('action="/agents/growth/resume"');
    const csrf = await tab.csrfToken("/agents/growth");
    // A failed Run now leaves it paused; a successful one resumes it.
    expect((await tab.request("/agents/growth/run", { form: { csrf } })).status).toBe(303);
    expect((await t.growth()).paused).toBe(true);
    t.model.script(fine);
    expect((await tab.request("/agents/growth/run", { form: { csrf } })).status).toBe(303);
    expect((await t.growth()).paused).toBe(false);
    expect(await t.openPauseAlerts()).toEqual([]);
    await t.scheduler.stop();
  });
});
