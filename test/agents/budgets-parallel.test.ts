/**
 * Budgets hold under parallel runs (issue 33): five "Run now" requests sent at once, against an
 * agent's daily cap and against the organization's budget, with a scripted model server that takes
 * a while to answer (a hosted model is out of reach). Each run reserves its estimated tokens before
 * the model call, atomically with the check, so the budget is overshot by at most one run's tokens.
 */
import { afterEach, describe, expect, it } from "vitest";
import { rows } from "../helpers/agents.ts";
import { fastKey } from "../helpers/rest.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

const RUN_TOKENS = 2400;

let model: ScriptedModel | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await model?.close();
  s = model = undefined;
});

async function slowModel(): Promise<ScriptedModel> {
  return startScriptedModel(async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { object: { summary: "Done." }, tokensIn: 2000, tokensOut: RUN_TOKENS - 2000 };
  });
}

async function runAtOnce(tab: Browserish, agents: string[]) {
  const csrf = await tab.csrfToken("/agents/growth");
  const replies = await Promise.all(agents.map((agent) => tab.request(`/agents/${agent}/run`, { form: { csrf } })));
  return replies.map((r) => r.status);
}

const spent = async (db: TestServer["db"], agent?: string) =>
  Number(
    (
      await rows(
        db,
        `SELECT coalesce(sum(tokens_in + tokens_out), 0) AS n FROM run_usage${agent ? " WHERE agent_id = ?" : ""}`,
        agent ? [agent] : [],
      )
    )[0]?.n,
  );

describe("budgets under parallel runs (scripted model server)", () => {
  it("five runs of one agent at once do not spend its 1,500-token cap five times", async () => {
    model = await slowModel();
    s = await startServer({ env: modelEnv(model) });
    const owner = await s.createUser("operator", "parallel-owner@example.com", "owner");
    const call = api(s.url, await fastKey(s, owner, ["admin", "read"]));
    expect((await call("/api/agents/growth", { method: "PATCH", body: { dailyTokens: 1500 } })).status).toBe(200);
    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);

    const statuses = await runAtOnce(tab, ["growth", "growth", "growth", "growth", "growth"]);
    expect(statuses.every((status) => status === 303)).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(await spent(s.db, "growth")).toBeLessThanOrEqual(1500 + RUN_TOKENS);
    const summaries = (await rows(s.db, "SELECT summary FROM agent_runs WHERE agent_id = 'growth' ORDER BY id")).map(
      (r) => r.summary as string,
    );
    expect(summaries.filter((t) => t.startsWith("Skipped: this agent's daily token cap is spent"))).toHaveLength(4);
    // The reservation is released once the run's tokens are stored.
    expect(await rows(s.db, "SELECT id FROM token_reservations")).toEqual([]);
  });

  it("five agents at once do not spend a 5,000-token organization budget five times", async () => {
    model = await slowModel();
    s = await startServer({ env: modelEnv(model, { CREW_MODEL_DAILY_TOKENS: "5000" }) });
    const owner = await s.createUser("operator", "parallel-org@example.com", "owner");
    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);

    const statuses = await runAtOnce(tab, ["growth", "bdr", "revenue", "sales", "finance"]);
    expect(statuses.every((status) => status === 303)).toBe(true);
    expect(model.requests.length).toBeGreaterThanOrEqual(1);
    expect(await spent(s.db)).toBeLessThanOrEqual(5000 + RUN_TOKENS);
    const skipped = await rows(s.db, "SELECT summary FROM agent_runs WHERE summary LIKE 'Skipped: today''s model budget is spent%'");
    expect(skipped.length).toBe(5 - model.requests.length);
    expect(await rows(s.db, "SELECT id FROM token_reservations")).toEqual([]);
  });
});
