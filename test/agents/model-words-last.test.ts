/**
 * The model's words last (src/docs/notes/model.md), against a scripted model server on loopback (a real model is
 * outside this machine's reach): a regeneration after a write keeps the day's model-written
 * briefing and standup text and adds a composed "since then" sentence naming what is new.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createRegenerator, type Regenerator } from "../../src/agents/regenerate.ts";
import { runBuiltIn } from "../../src/agents/runners.ts";
import { MINUTE } from "../../src/lib/clock.ts";
import { complete, startRun } from "../helpers/agents.ts";
import { client } from "../helpers/rest.ts";
import { modelEnv, type RecordedRequest, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
let regenerator: Regenerator | undefined;
afterEach(async () => {
  await regenerator?.stop();
  await s?.close();
  await model?.close();
  regenerator = s = model = undefined;
});

const MARKER = "MODEL-MARKER: a calm day, focus on the renewal.";

describe("the model's words last (scripted model server)", () => {
  it("keeps the day's model-written briefing and standup through a regeneration after a new action, adding what is new since", async () => {
    model = await startScriptedModel(() => ({ object: { text: MARKER } }));
    s = await startServer({ env: modelEnv(model) });
    const { call } = await client(s, "operator", ["admin"]);
    regenerator = createRegenerator(s.deps, { timers: false });
    s.clock.set(Date.parse("2026-11-23T08:03:00Z"));
    await call("/api/mcp/actions", { body: { title: "Send the newsletter", priority: "low" } });
    await regenerator.flush();
    await runBuiltIn(s.deps, s.org, "briefing", { words: true });
    await runBuiltIn(s.deps, s.org, "standup", { mode: "morning", words: true });
    expect((await call("/api/mcp/briefing")).json.briefing).toBe(MARKER);
    const calls = model.requests.length;

    s.clock.advance(90 * MINUTE);
    const posted = await call("/api/mcp/actions", { body: { title: "Payment provider is down", priority: "critical" } });
    expect(posted.status).toBe(200);
    await regenerator.flush();
    expect(model.requests.length).toBe(calls); // a regeneration never calls the model

    const briefing = (await call("/api/mcp/briefing")).json;
    expect(briefing.generatedAt).toBe("2026-11-23T09:33:00.000Z");
    expect(briefing.briefing).toBe(`${MARKER} Since 08:03: 1 new critical action — Payment provider is down.`);
    expect(briefing.pendingActions[0].title).toBe("Payment provider is down"); // the structured parts are recomposed
    expect(briefing).not.toHaveProperty("words");
    const standup = (await call("/api/mcp/standup?mode=morning")).json;
    expect(standup.briefing).toBe(`${MARKER} Since 08:03: 1 new critical action — Payment provider is down.`);
    expect(standup.interventions[0]).toMatchObject({ title: "Payment provider is down", priority: "critical" });
    expect(standup).not.toHaveProperty("words");

    // A second regeneration starts again from the model's words: one sentence, not two.
    s.clock.advance(MINUTE);
    await call("/api/mcp/actions", { body: { title: "Tidy the wiki", priority: "low" } });
    await regenerator.flush();
    expect((await call("/api/mcp/briefing")).json.briefing).toBe(
      `${MARKER} Since 08:03: 1 new critical action — Payment provider is down; 1 other new action.`,
    );

    // The next day the model's text is no longer the day's: the regeneration composes.
    s.clock.advance(24 * 60 * MINUTE);
    await call("/api/mcp/actions", { body: { title: "Next day", priority: "high" } });
    await regenerator.flush();
    expect((await call("/api/mcp/briefing")).json.briefing).not.toContain("MODEL-MARKER");
  });
});

const dataOf = (r: RecordedRequest) => r.messages[0]?.text.match(/<data name="(\w+)"/)?.[1];

describe("dna and pulse in words (scripted model server)", () => {
  it("dna takes archetype, strengths, weaknesses and patterns from the model; pulse its trend sentence", async () => {
    model = await startScriptedModel((r) =>
      dataOf(r) === "dna"
        ? {
            // Each claim cites the data it rests on (src/docs/notes/prompt-injection.md#words).
            object: {
              archetype: { text: "Scripted archetype: bootstrapped B2B tool", evidence: ["c1"] },
              strengths: [{ text: "Loyal early customers", evidence: ["c1"] }],
              weaknesses: [{ text: "One sales channel", evidence: ["c1"] }],
              patterns: [{ name: "Word of mouth", insight: "Most deals start from referrals.", evidence: ["c1"] }],
            },
          }
        : { object: { trend: "Scripted trend: MRR grew from $10,000 to $11,000 while actives held steady." } },
    );
    s = await startServer({ env: modelEnv(model) });
    const { call } = await client(s, "operator", ["admin"]);
    await call("/api/mcp/contacts", { body: { name: "Early Customer", email: "first@customer.example", relationship: "key" } });
    for (const mrr of [10_000, 11_000]) {
      const run = await startRun(call, "pulse");
      await complete(call, "pulse", run.runId, { status: "ok", summary: "Reported.", metrics: { dau: 40, wau: 120, mrr } });
      s.clock.advance(MINUTE);
    }

    expect((await runBuiltIn(s.deps, s.org, "dna", { words: true })).summary).toContain("Scripted archetype");
    const profile = (await call("/api/mcp/dna")).json;
    expect(profile).toMatchObject({
      archetype: "Scripted archetype: bootstrapped B2B tool",
      strengths: ["Loyal early customers"],
      weaknesses: ["One sales channel"],
      patterns: [
        { name: "Word of mouth", insight: "Most deals start from referrals." },
        { name: "Network", insight: "1 contact in the CRM, 1 of them key or active relationships." },
      ],
    });

    const pulse = await runBuiltIn(s.deps, s.org, "pulse", { words: true });
    expect(pulse.summary).toBe(
      "DAU 40, WAU 120, MRR $11,000 (latest reported). Scripted trend: MRR grew from $10,000 to $11,000 while actives held steady.",
    );
    const trendRequest = model.requests.find((r) => dataOf(r) === "pulse");
    expect(trendRequest?.messages[0]?.text).toContain('"mrr":10000');
    expect((await call("/api/agents/pulse/runs")).json.runs[0]).toMatchObject({ tokensIn: 100, tokensOut: 20 });

    // Without words (Run now on the web, regenerations) neither calls the model.
    const calls = model.requests.length;
    expect((await runBuiltIn(s.deps, s.org, "pulse")).summary).not.toContain("Scripted trend");
    expect(model.requests.length).toBe(calls);
  });
});
