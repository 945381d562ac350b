/**
 * Model budgets and cost (issue 25), with a scripted model server reporting usage (a hosted model
 * is out of reach): a per-agent daily cap beside the organization's budget, the 80 % warning as a
 * `model` warning alert and exactly one signed `budget.warning` delivery per budget per day
 * (verified with standardwebhooks), runs past a cap skipped with a clear summary, and costUsd
 * per run with the day's and month's totals on /settings/model.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ModelRunDeps, runModelAgent } from "../../src/agents/model-run.ts";
import { deliverDue } from "../../src/webhooks/deliver.ts";
import { rows } from "../helpers/agents.ts";
import { fastKey } from "../helpers/rest.ts";
import { fakeSources, modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver, subscribe, verifyAt } from "../helpers/webhooks.ts";
import { Browserish } from "../web/client.ts";

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  await receiver?.close();
  s = model = receiver = undefined;
});

describe("budgets and cost (scripted model server)", () => {
  it("warns once per budget per day at 80 %, skips runs past a cap, and prices each run", async () => {
    model = await startScriptedModel(() => ({ object: { summary: "Done." }, tokensIn: 300, tokensOut: 100 }));
    s = await startServer({
      env: modelEnv(model, { CREW_MODEL_DAILY_TOKENS: "1000", CREW_MODEL_PRICE_INPUT: "2000", CREW_MODEL_PRICE_OUTPUT: "10000" }),
    });
    const owner = await s.createUser("operator", "budget-owner@example.com", "owner");
    const member = await s.createUser("operator", "budget-member@example.com", "member");
    const call = api(s.url, await fastKey(s, owner, ["admin", "read"]));
    const memberCall = api(s.url, await fastKey(s, member, ["admin", "read"]));
    receiver = await startReceiver();
    const hook = await subscribe(call, receiver.url, ["budget.warning"]);
    const deps: ModelRunDeps = { ...s.deps, sources: fakeSources() };

    expect((await memberCall("/api/agents/growth", { method: "PATCH", body: { dailyTokens: 500 } })).status).toBe(403);
    const capped = await call("/api/agents/growth", { method: "PATCH", body: { dailyTokens: 500 } });
    expect(capped.json).toMatchObject({ id: "growth", dailyTokens: 500 });
    expect((await call("/api/agents/growth", { method: "PATCH", body: { dailyTokens: 0 } })).status).toBe(400);

    expect(await runModelAgent(deps, s.org, "growth")).toMatchObject({ status: "ok", tokensIn: 300, tokensOut: 100 }); // agent 400/500
    // New data, so the second run is not skipped for unchanged inputs.
    s.clock.advance(1000);
    await call("/api/mcp/feed", { body: { title: "Trial signups are up" } });
    expect(await runModelAgent(deps, s.org, "growth")).toMatchObject({ status: "ok" }); // agent 800/500, org 800/1000
    const skipped = await runModelAgent(deps, s.org, "growth");
    expect(skipped).toMatchObject({ status: "skipped" });
    expect(skipped.summary).toBe("Skipped: this agent's daily token cap is spent (800 of 500 tokens); runs resume after midnight UTC.");
    expect(await runModelAgent(deps, s.org, "product")).toMatchObject({ status: "ok" }); // org 1200/1000: past it, warned already
    const orgSkipped = await runModelAgent(deps, s.org, "finance");
    expect(orgSkipped.summary).toMatch(/^Skipped: today's model budget is spent \(1,200 of 1,000 tokens\)/);

    expect(
      await rows(
        s.db,
        "SELECT severity, message FROM integration_alerts WHERE service = 'model' AND resolved_at IS NULL ORDER BY flagged_at, id",
      ),
    ).toEqual([
      { severity: "warning", message: expect.stringMatching(/^80 % of growth's daily token cap is used \(400 of 500 tokens\)/) },
      { severity: "warning", message: expect.stringMatching(/^80 % of today's model budget is used \(800 of 1,000 tokens\)/) },
    ]);

    expect(await deliverDue(s.deps)).toMatchObject({ delivered: 2, failed: 0 });
    expect(receiver.hits).toHaveLength(2);
    // The deliverer sends a claim's rows at once, so they may arrive in either order: read them oldest first.
    const payloads = receiver.hits
      .map((hit) => verifyAt(hook.secret, hit, s!.clock.now()) as { timestamp: string })
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    const timestamp = new Date(s.clock.now()).toISOString();
    expect(payloads).toEqual([
      // Raised by the first run, a second before the rest.
      {
        event: "budget.warning",
        organizationId: s.org.id,
        agent: "growth",
        used: 400,
        limit: 500,
        timestamp: new Date(s.clock.now() - 1000).toISOString(),
      },
      { event: "budget.warning", organizationId: s.org.id, used: 800, limit: 1000, timestamp },
    ]);
    expect(await deliverDue(s.deps)).toMatchObject({ delivered: 0 });

    const runs = (await call("/api/agents/growth/runs")).json.runs;
    expect(runs.map((r: { costUsd: number | null }) => r.costUsd)).toEqual([null, 1.6, 1.6]); // 300 × $2000/M + 100 × $10000/M

    const openapi = await (await fetch(`${s.url}/openapi.json`)).json();
    expect(openapi.webhooks["budget.warning"].post.requestBody.content["application/json"].schema.required).toEqual([
      "event",
      "organizationId",
      "used",
      "limit",
      "timestamp",
    ]);

    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);
    const page = await tab.request("/settings/model");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Spending");
    expect(page.text).toMatch(/Today<\/th><td[^>]*>900<\/td><td[^>]*>300<\/td><td[^>]*class="cost">\$4\.80<\/td>/);

    // Owners set the cap on /agents/{id} too; bad input is a 400 that leaves it unchanged.
    const csrf = await tab.csrfToken("/agents/growth");
    const bad = await tab.request("/agents/growth/cap", { form: { csrf, dailyTokens: "lots" } });
    expect(bad.status).toBe(400);
    expect((await call("/api/agents/growth", { method: "PATCH", body: { schedule: "0 9 * * 1" } })).json.dailyTokens).toBe(500);
    expect((await tab.request("/agents/growth/cap", { form: { csrf, dailyTokens: "2000" } })).status).toBe(303);
    expect((await tab.request("/agents/growth")).text).toContain("<strong>2,000</strong> tokens a day");
  });
});
