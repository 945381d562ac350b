/**
 * A run's context carries evidence (issue 33): the insights and handoffs that POST
 * /api/agents/{id}/runs hands to a run hold the evidence they rest on, as the feed and the
 * handoff listings do, so an external runner can cite and check them without a second request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentsFixture, agentsServer, complete, startRun } from "../helpers/agents.ts";

let f: AgentsFixture;
beforeAll(async () => {
  f = await agentsServer();
});
afterAll(async () => {
  await f.close();
});

describe("the run context's evidence", () => {
  it("lists insights and handoffs with their evidence", async () => {
    const posted = (await f.call("/api/mcp/feed", { body: { title: "Churn is up in the north", impact: "high" } })).json.insightId;
    const cited = [{ kind: "insight", ref: posted, title: "Churn is up in the north" }];
    const growth = await startRun(f.call, "growth");
    const done = await complete(f.call, "growth", growth.runId, {
      status: "ok",
      summary: "Cited.",
      insights: [{ title: "Renewals wobble", evidence: cited }],
      newHandoffs: [{ to: "sales", title: "Offer a renewal call", evidence: cited }],
    });
    expect(done.status).toBe(200);

    const sales = await startRun(f.call, "sales");
    // Crew decides the trust of its own records (src/docs/notes/prompt-injection.md#provenance): a person posted this insight.
    const trusted = cited.map((e) => ({ ...e, trust: "internal" }));
    expect(sales.context.handoffs).toEqual([expect.objectContaining({ title: "Offer a renewal call", evidence: trusted })]);
    const wobble = sales.context.insights.find((i: { title: string }) => i.title === "Renewals wobble");
    expect(wobble.evidence).toEqual(trusted);
    const plain = sales.context.insights.find((i: { title: string }) => i.title === "Churn is up in the north");
    expect(plain.evidence).toEqual([]);
  });
});
