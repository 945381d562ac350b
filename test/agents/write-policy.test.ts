/**
 * The write policy on what runs say (src/docs/notes/prompt-injection.md), against a scripted
 * OpenAI-compatible model server on loopback (a hosted model is outside this machine's reach):
 * the model's words checked (a foreign link, an invented figure, a dismissed item → the composed
 * text, said on the run), dna on an empty organization, said once by meaning (two wordings, three
 * runs of one handoff, one feed item via two agents, a re-worded dismissal), and small models
 * (fenced JSON, one 500 then a good answer).
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ModelRunDeps, runModelAgent, type SourceAccess } from "../../src/agents/model-run.ts";
import { runBuiltIn } from "../../src/agents/runners.ts";
import type { SourceItem } from "../../src/integrations/sources.ts";
import { MINUTE } from "../../src/lib/clock.ts";
import { rows } from "../helpers/agents.ts";
import { client } from "../helpers/rest.ts";
import { handlesIn, modelEnv, type Script, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const FEED_ITEM: SourceItem = {
  kind: "feed",
  id: "guid-acme-pricing",
  title: "Acme raises prices by 15%",
  date: "2026-11-20T08:00:00.000Z",
  text: "Acme raised list prices across its plans.",
  url: "https://news.example.com/acme-prices",
  source: "https://news.example.com/feed.xml",
};

/** Every feed reader gets the same item; `round` changes its text so each run has new inputs. */
function feed(round = { n: 0 }): SourceAccess {
  return {
    missing: async () => null,
    read: async () => ({ items: [{ ...FEED_ITEM, text: `${FEED_ITEM.text} (${round.n})` }], missing: null, markSeen: async () => {} }),
  };
}

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  s = model = undefined;
});

async function setup(script: Script) {
  model = await startScriptedModel(script);
  s = await startServer({ env: modelEnv(model) });
  const { call } = await client(s, "operator", ["admin"]);
  const round = { n: 0 };
  const deps: ModelRunDeps = { ...s.deps, sources: feed(round) };
  return { model, s, call, deps, round };
}

describe("the model's words are checked (scripted model server)", () => {
  for (const [what, text, reason] of [
    ["a foreign link", "A calm day. Pay the invoice at https://evil.example/pay today.", "links to an address outside Crew"],
    ["an invented figure", "A calm day: MRR grew 12% this week.", "states a figure (12)"],
    ["a dismissed item", "Top priority: wire the deposit to Globex today.", "mentions an item that is dismissed"],
  ] as const) {
    it(`refuses briefing words with ${what}: the composed text is stored and the run says so`, async () => {
      const { call, s } = await setup(() => ({ object: { text } }));
      const action = (await call("/api/mcp/actions", { body: { title: "Wire the deposit to Globex", priority: "critical" } })).json
        .actionId;
      await call(`/api/mcp/actions/${action}`, { method: "PATCH", body: { status: "dismissed" } });
      const run = await runBuiltIn(s.deps, s.org, "briefing", { words: true });
      expect(run.summary).toContain(`Composed text used: it ${reason}`);
      const briefing = (await call("/api/mcp/briefing")).json.briefing as string;
      expect(briefing).toMatch(/^Good /);
      expect(briefing).not.toContain(text);
    });
  }

  it("keeps words that hold only the inputs' figures, and drops them at the next regeneration once an action they name is dismissed", async () => {
    const { call, s } = await setup(() => ({ object: { text: "Top priority: pay the Globex deposit today." } }));
    const action = (await call("/api/mcp/actions", { body: { title: "Pay the Globex deposit", priority: "critical" } })).json.actionId;
    const run = await runBuiltIn(s.deps, s.org, "briefing", { words: true });
    expect(run.summary).not.toContain("Composed text used");
    expect((await call("/api/mcp/briefing")).json.briefing).toBe("Top priority: pay the Globex deposit today.");
    s.clock.advance(10 * MINUTE);
    await call(`/api/mcp/actions/${action}`, { method: "PATCH", body: { status: "dismissed" } });
    await runBuiltIn(s.deps, s.org, "briefing");
    expect((await call("/api/mcp/briefing")).json.briefing).not.toContain("Globex");
  });

  it("leaves dna unknown on an empty organization, however a model would describe it", async () => {
    const { call, s, model } = await setup(() => ({
      object: {
        archetype: { text: "Fast-growing marketplace", evidence: ["d1"] },
        strengths: [{ text: "Loyal customers", evidence: ["c1"] }],
        weaknesses: [],
        patterns: [],
      },
    }));
    const before = model.requests.length;
    await runBuiltIn(s.deps, s.org, "dna", { words: true });
    const dna = (await call("/api/mcp/dna")).json;
    expect(dna).toMatchObject({ archetype: "unknown", strengths: [], weaknesses: [] });
    expect(model.requests.length).toBe(before); // nothing to read: no model call
  });

  it("keeps only dna claims that cite the data they rest on", async () => {
    const { call, s } = await setup((r) => {
      const contact = handlesIn(r, "c")[0] ?? "c1";
      return {
        object: {
          archetype: { text: "Relationship-driven consultancy", evidence: [contact] },
          strengths: [
            { text: "Close ties with Initech", evidence: [contact] },
            { text: "Invented strength", evidence: ["z9"] },
          ],
          weaknesses: [],
          patterns: [],
        },
      };
    });
    await call("/api/mcp/contacts", { body: { name: "Peter Gibbons", email: "peter@initech.example", company: "Initech" } });
    await runBuiltIn(s.deps, s.org, "dna", { words: true });
    expect((await call("/api/mcp/dna")).json).toMatchObject({
      archetype: "Relationship-driven consultancy",
      strengths: ["Close ties with Initech"],
    });
  });
});

describe("said once, by meaning (scripted model server)", () => {
  it("stores two wordings citing one input once", async () => {
    const { call, deps, s } = await setup((r) => {
      const f = handlesIn(r, "f");
      return {
        object: {
          summary: "x",
          actions: [
            { title: "Review Acme's price increase", priority: "high", evidence: f },
            { title: "Review the Acme price increase now", priority: "medium", evidence: f },
          ],
        },
      };
    });
    const run = await runModelAgent(deps, s.org, "research");
    expect(run.summary).toBe("Stored 1 action. Said once: 1 said twice in the answer, stored once.");
    expect((await call("/api/mcp/actions")).json.actions.map((a: any) => a.title)).toEqual(["Review Acme's price increase"]);
  });

  it("queues one handoff proposed by three runs, and posts one insight for one feed item read by two agents", async () => {
    const { deps, s, round } = await setup((r) => {
      const f = handlesIn(r, "f");
      return {
        object: {
          summary: "x",
          insights: [{ title: `Acme raises prices by ${15}%`, impact: "medium", evidence: f }],
          handoffs: [{ to: "sales", title: "Tell customers about Acme's price rise", evidence: f }],
        },
      };
    });
    for (const agent of ["research", "corpdev", "research"]) {
      round.n++;
      expect(await runModelAgent(deps, s.org, agent)).toMatchObject({ status: "ok" });
    }
    expect(await rows(s.db, "SELECT to_agent, title FROM handoffs WHERE org_id = ?", [s.org.id])).toEqual([
      { to_agent: "sales", title: "Tell customers about Acme's price rise" },
    ]);
    expect(await rows(s.db, "SELECT agent, title FROM insights WHERE org_id = ?", [s.org.id])).toEqual([
      { agent: "research", title: "Acme raises prices by 15%" },
    ]);
  });

  it("drops a re-worded repeat of a dismissed suggestion; dismissing it dismisses the action made from the same evidence", async () => {
    let wording = "Match Acme's new prices";
    const { call, deps, s, round } = await setup((r) => {
      const f = handlesIn(r, "f");
      return {
        object: {
          summary: "x",
          suggestions: [{ title: wording, priority: "medium", evidence: f }],
          actions: [{ title: "Draft a reply to Acme's pricing", priority: "medium", evidence: f }],
        },
      };
    });
    round.n++;
    await runModelAgent(deps, s.org, "research");
    const [suggestion] = (await call("/api/mcp/suggestions")).json.suggestions;
    expect((await call(`/api/mcp/suggestions/${suggestion.id}`, { method: "PATCH", body: { status: "dismissed" } })).status).toBe(200);
    expect((await call("/api/mcp/actions?view=open")).json.actions).toEqual([]);
    wording = "Match the new prices of Acme";
    round.n++;
    const again = await runModelAgent(deps, s.org, "research");
    expect(again.summary).toContain("2 dismissed recently, dropped");
    expect((await call("/api/mcp/suggestions")).json.suggestions).toEqual([]);
  });
});

describe("small models welcome (scripted model server)", () => {
  it("takes the JSON out of a code fence and a sentence, and matches enum values by case and synonym", async () => {
    const { call, deps, s } = await setup((r) => {
      const answer = {
        summary: "x",
        actions: [{ title: "Call Acme about pricing", priority: "Urgent", type: "Follow-Up", evidence: handlesIn(r, "f") }],
      };
      return { text: `Sure! Here is the JSON:\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\`` };
    });
    const run = await runModelAgent(deps, s.org, "research");
    expect(run).toMatchObject({ status: "ok", attempts: 1 });
    // Outside input only: critical is capped at high.
    expect((await call("/api/mcp/actions")).json.actions).toEqual([
      expect.objectContaining({ title: "Call Acme about pricing", priority: "high", type: "follow_up" }),
    ]);
    const [stored] = (await call("/api/agents/research/runs")).json.runs;
    expect(JSON.stringify(stored.output)).toContain("took the JSON out of a code fence");
  });

  it("retries one HTTP 500 once, then stores the good answer: two requests", async () => {
    let n = 0;
    const { deps, s, model } = await setup((r) =>
      ++n === 1
        ? { status: 500, error: { error: { message: "overloaded" } }, headers: { "retry-after": "0" } }
        : { object: { summary: "x", insights: [{ title: "Acme prices up", evidence: handlesIn(r, "f") }] } },
    );
    expect(await runModelAgent(deps, s.org, "research")).toMatchObject({ status: "ok", summary: "Stored 1 insight." });
    expect(model.requests.length).toBe(2);
  });
});
