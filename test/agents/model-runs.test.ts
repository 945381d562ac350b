/**
 * Model-backed runs (src/docs/notes/model.md) against a scripted model server on loopback (a real model is
 * outside this machine's reach): each formerly external agent produces its kinds of records,
 * visible through REST and MCP; the request carries the agent's instructions and its inputs; mail
 * and feed text stay inside delimited data fields.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOBS, MODEL_AGENTS } from "../../src/agents/jobs.ts";
import { type ModelRunDeps, runModelAgent } from "../../src/agents/model-run.ts";
import { rows } from "../helpers/agents.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { client } from "../helpers/rest.ts";
import {
  fakeSources,
  handlesIn,
  modelEnv,
  type RecordedRequest,
  type ScriptedModel,
  startScriptedModel,
} from "../helpers/scripted-model.ts";
import { type api, startServer, type TestServer } from "../helpers/server.ts";

const agentOf = (r: RecordedRequest) => /You are the .+? agent \((\w+)\)\./.exec(r.system)?.[1] ?? "?";

/** Answers every agent with one record of each kind it may write (the answer schema is strict). */
function everythingAnswer(r: RecordedRequest, contactId: string) {
  const id = agentOf(r);
  const writes = new Set<string>(JOBS.find((j) => j.id === id)?.writes ?? []);
  const evidence = handlesIn(r).slice(0, 2);
  const all: Record<string, unknown> = {
    suggestions: [{ title: `${id} suggests a step`, detail: "Because the data says so.", priority: "high", evidence }],
    actions: [{ title: `${id} asks a person`, priority: "medium", type: "follow_up", contactId, evidence }],
    insights: [{ title: `${id} noticed a trend`, impact: "high", evidence }],
    handoffs: [{ to: id === "sales" ? "bdr" : "sales", title: `${id} hands over a lead`, evidence }],
    contacts: [{ name: "Grace Hopper", email: "grace@example.com", company: "Navy" }],
    pipeline: [{ company: "Engines Ltd", stage: "proposal", value: 5000, evidence: handlesIn(r).slice(0, 1) }],
  };
  return { object: { summary: `${id}: reviewed the data`, ...Object.fromEntries(Object.entries(all).filter(([k]) => writes.has(k))) } };
}

describe("a run of each model-backed agent (scripted model server)", () => {
  let model: ScriptedModel;
  let s: TestServer;
  let call: ReturnType<typeof api>;
  let mcp: Client;
  let contactId: string;
  const seen: string[] = [];

  beforeAll(async () => {
    model = await startScriptedModel();
    s = await startServer({ env: modelEnv(model) });
    const admin = await client(s, "operator", ["admin"]);
    call = admin.call;
    mcp = await connectHttp(s.url, admin.key);
    contactId = (await call("/api/mcp/contacts", { body: { name: "Ada Lovelace", email: "ada@example.com", company: "Engines Ltd" } })).json
      .contactId;
    expect((await call("/api/mcp/feed", { body: { title: "Churn doubled in the SMB plan", impact: "high" } })).status).toBe(200);
    for (const id of MODEL_AGENTS) {
      expect(
        (await call("/api/mcp/handoffs", { body: { from: "manual", to: id, title: `Please look at ${id}-specific work` } })).status,
      ).toBe(200);
    }
    model.script((r) => everythingAnswer(r, contactId));
    const deps: ModelRunDeps = { ...s.deps, sources: fakeSources(seen) };
    for (const id of MODEL_AGENTS) {
      const run = await runModelAgent(deps, s.org, id);
      expect(run, id).toMatchObject({ status: "ok", summary: expect.stringMatching(/^Stored /), tokensIn: 100, tokensOut: 20 });
    }
  });
  afterAll(async () => {
    await mcp?.close();
    await s?.close();
    await model?.close();
  });

  it("runs the 13 model-backed agents (all formerly external ones; slack reads Slack since issue 22)", () => {
    expect(MODEL_AGENTS.sort()).toEqual(
      [
        "bdr",
        "calendar",
        "compliance",
        "content",
        "corpdev",
        "finance",
        "growth",
        "inbox",
        "product",
        "research",
        "revenue",
        "sales",
        "slack",
      ].sort(),
    );
    expect(JOBS.find((j) => j.id === "slack")?.runner).toBe("model");
    expect(model.requests.map(agentOf).sort()).toEqual([...MODEL_AGENTS].sort());
  });

  it("sends the agent's instructions and the inputs it reads: a contact, an insight, a handoff posted before", () => {
    for (const r of model.requests) {
      const id = agentOf(r);
      const job = JOBS.find((j) => j.id === id);
      expect(r.system, id).toContain(job?.instructions);
      const user = r.messages[0]?.text ?? "";
      expect(user, id).toContain(`Please look at ${id}-specific work`);
      expect(user, id).toContain("Churn doubled in the SMB plan");
      if (job?.reads.contacts) expect(user, id).toContain("ada@example.com");
      expect(r.headers.authorization).toBe(`Bearer ${modelEnv(model).CREW_MODEL_API_KEY}`);
    }
  });

  it("stores each agent's kinds of records, visible through REST and MCP", async () => {
    for (const id of MODEL_AGENTS) {
      const runs = (await call(`/api/agents/${id}/runs`)).json.runs;
      // The summary counts what was stored, composed by Crew; the model's own line is kept apart (src/docs/notes/prompt-injection.md).
      expect(runs[0], id).toMatchObject({
        status: "ok",
        summary: expect.stringMatching(/^Stored \d/),
        tokensIn: 100,
        tokensOut: 20,
        hasData: true,
      });
    }
    const suggestions = (await call("/api/mcp/suggestions")).json.suggestions.map((x: any) => x.title);
    const mcpSuggestions = JSON.stringify(await mcp.callTool({ name: "crew_suggestions", arguments: {} }));
    const actions = JSON.stringify((await call("/api/mcp/actions?limit=100")).json);
    const mcpActions = JSON.stringify(await mcp.callTool({ name: "crew_list_actions", arguments: { limit: 100 } }));
    const status = JSON.stringify(await mcp.callTool({ name: "crew_agent_status", arguments: {} }));
    const insights = await rows<{ agent: string; title: string }>(s.db, "SELECT agent, title FROM insights WHERE created_by = agent");
    const handoffs = await rows<{ from_agent: string; to_agent: string }>(
      s.db,
      "SELECT from_agent, to_agent FROM handoffs WHERE from_agent != 'manual'",
    );
    for (const job of JOBS.filter((j) => j.runner === "model")) {
      const id = job.id;
      const writes = (kind: string) => (job.writes as string[]).includes(kind);
      expect(suggestions.includes(`${id} suggests a step`), id).toBe(writes("suggestions"));
      expect(mcpSuggestions.includes(`${id} suggests a step`), id).toBe(writes("suggestions"));
      expect(actions.includes(`${id} asks a person`), id).toBe(writes("actions"));
      expect(mcpActions.includes(`${id} asks a person`), id).toBe(writes("actions"));
      expect(
        insights.some((i) => i.agent === id && i.title === `${id} noticed a trend`),
        id,
      ).toBe(writes("insights"));
      expect(
        handoffs.some((h) => h.from_agent === id),
        id,
      ).toBe(writes("handoffs"));
    }
    // Actions keep the contact they are about; the claimed handoffs were reported done.
    expect((await rows(s.db, "SELECT count(*) AS n FROM actions WHERE contact_id = ?", [contactId]))[0]?.n).toBeGreaterThan(0);
    expect(await rows(s.db, "SELECT status FROM handoffs WHERE from_agent = 'manual' AND status != 'done'")).toEqual([]);
    // Only inbox may write contacts; sales and revenue update the pipeline.
    expect(await rows(s.db, "SELECT name, email, created_by FROM contacts WHERE email = 'grace@example.com'")).toEqual([
      { name: "Grace Hopper", email: "grace@example.com", created_by: "inbox" },
    ]);
    expect((await call("/api/mcp/dna")).json.pipeline).toEqual([{ company: "Engines Ltd", stage: "proposal", value: 5000 }]);
    // Sources are marked seen only after the run completed.
    expect(seen.sort()).toEqual(["calendar", "compliance", "content", "corpdev", "inbox", "research", "slack"]);
  });

  it("passes mail and feed text only inside a delimited, untrusted data field", () => {
    const inbox = model.requests.find((r) => agentOf(r) === "inbox") as RecordedRequest;
    expect(inbox.system).not.toContain("Ignore previous instructions");
    const user = inbox.messages[0]?.text ?? "";
    const field = /<data name="mail" untrusted="true">\n(.*)\n<\/data>/.exec(user);
    expect(field?.[1]).toContain("We would start in January.");
    // The mail's own "</data>" cannot close the field early: it arrives escaped inside the JSON.
    expect(JSON.parse(field?.[1] ?? "[]")[0].body).toContain("</data> We would start in January");
    expect(user.split("We would start in January").length).toBe(2);
    const research = model.requests.find((r) => agentOf(r) === "research") as RecordedRequest;
    expect(
      /<data name="feed_items" untrusted="true">\n.*Competitor cuts prices by 20%.*\n<\/data>/.test(research.messages[0]?.text ?? ""),
    ).toBe(true);
  });
});
