/**
 * "Make it an action" is one action however many ask at once (src/docs/notes/model.md): the claim
 * of the suggestion and the insert of its action are one transaction with a conditional UPDATE,
 * so ten PATCH requests sent together over real HTTP make one action, one webhook outbox row, and
 * every answer names the same actionId. The store answers as over a network (test/helpers/store.ts),
 * so the requests do interleave between reading the suggestion and writing its action.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suggestionInsertStatement } from "../../src/store/actions/suggestions.ts";
import { client } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { overNetwork } from "../helpers/store.ts";
import { subscribe } from "../helpers/webhooks.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ store: overNetwork });
});
afterAll(async () => {
  await s?.close();
});

describe("PATCH /api/mcp/suggestions/{id} accepted, 10 at once", () => {
  it("makes exactly one action and one action.created delivery; every answer points at it", async () => {
    const { call } = await client(s, "operator", ["admin"]);
    await subscribe(call, "http://127.0.0.1:9/hook", ["action.created"]);
    await s.db.execute(
      suggestionInsertStatement({
        id: "sug_race",
        orgId: s.org.id,
        agentId: "growth",
        runId: null,
        title: "Start a referral program",
        detail: "Churn is low, word of mouth is high.",
        priority: "high",
        createdAt: s.clock.now(),
      }),
    );
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call("/api/mcp/suggestions/sug_race", { method: "PATCH", body: { status: "accepted" } })),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const actionIds = new Set(answers.map((a) => a.json.actionId));
    expect(actionIds.size).toBe(1);
    const [actionId] = [...actionIds];
    expect(actionId).toMatch(/^act_/);
    for (const a of answers) expect(a.json).toMatchObject({ id: "sug_race", status: "accepted", actionId });

    const actions = await s.db.all<{ id: string }>("SELECT id FROM actions WHERE org_id = ? AND title = ?", [
      s.org.id,
      "Start a referral program",
    ]);
    expect(actions.map((a) => a.id)).toEqual([actionId]);
    const deliveries = await s.db.all<{ payload: string }>("SELECT payload FROM webhook_deliveries WHERE event = 'action.created'");
    expect(deliveries.map((d) => JSON.parse(d.payload).actionId)).toEqual([actionId]);

    // Accepting again later still answers the same action, and writes nothing.
    const again = await call("/api/mcp/suggestions/sug_race", { method: "PATCH", body: { status: "accepted" } });
    expect(again.json.actionId).toBe(actionId);
    expect((await s.db.all("SELECT id FROM actions WHERE org_id = ?", [s.org.id])).length).toBe(1);
  });
});
