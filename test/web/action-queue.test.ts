/**
 * The action queue over plain HTTP: an action an agent's run wrote links to that run on the
 * agent's page (which holds the anchor), and only approval actions offer Approve.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { complete, startRun } from "../helpers/agents.ts";
import { client } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { signedIn } from "./client.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("/actions", () => {
  it("links an agent-made action to its run, and offers Approve only on approval actions", async () => {
    const { call } = await client(s, "operator", ["admin"]);
    const run = await startRun(call, "sales");
    const done = await complete(call, "sales", run.runId, {
      status: "ok",
      summary: "Two actions.",
      actions: [
        { title: "Approve the discount", type: "approval", priority: "high" },
        { title: "Send the deck", priority: "high" },
      ],
    });
    expect(done.status).toBe(200);
    const { tab } = await signedIn(s);
    const page = await tab.request("/actions");
    expect(page.status).toBe(200);
    const items = Object.fromEntries(
      [...page.text.matchAll(/<li class="action-item[^"]*" id="(act_\w+)"[^>]*>([\s\S]*?)<\/li>/g)].map((m) => [m[1], m[2] ?? ""]),
    );
    const actions = (await call("/api/mcp/actions?source=sales")).json.actions as { id: string; title: string }[];
    const item = (title: string) => items[actions.find((a) => a.title === title)?.id ?? ""] ?? "";
    for (const title of ["Approve the discount", "Send the deck"]) expect(item(title)).toContain(`href="/agents/sales#run-${run.runId}"`);
    expect(item("Approve the discount")).toMatch(/>Approve<span/);
    expect(item("Send the deck")).not.toMatch(/>Approve<span/);
    expect((await tab.request("/agents/sales")).text).toContain(`id="run-${run.runId}"`);
  });
});

describe("Based on", () => {
  it("shows the evidence a run sent under its action, its insight on /feed and its handoff on /handoffs, each linked", async () => {
    const { call } = await client(s, "operator", ["admin"]);
    const run = await startRun(call, "research");
    const cited = [{ kind: "feed_item", ref: "guid-7", title: "Rates fall again", url: "https://news.example.com/rates" }];
    const done = await complete(call, "research", run.runId, {
      status: "ok",
      summary: "Cited.",
      actions: [{ title: "Refinance the loan", evidence: cited }],
      insights: [{ title: "Rates are falling", evidence: cited }],
      newHandoffs: [{ to: "sales", title: "Tell customers about rates", evidence: cited }],
    });
    expect(done.status).toBe(200);
    const { tab } = await signedIn(s);
    const based =
      'Based on: <span class="evidence" title=""><a href="https://news.example.com/rates" rel="noopener noreferrer">Rates fall again</a></span>';
    for (const path of ["/actions", "/feed", "/handoffs"]) expect((await tab.request(path)).text, path).toContain(based);
  });
});
