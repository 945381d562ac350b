/**
 * MCP beyond tools (src/docs/notes/mcp-resources-and-prompts.md) through the SDK's own Client over Streamable HTTP: resources and
 * templates (each read equal to the REST answer), prompts built from live data, completions,
 * resource links in tool results, icons served by Crew, and what each plan sees.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_IDS } from "../../src/domain.ts";
import { DAY } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/random.ts";
import { insertInsight } from "../../src/store/feed/insights.ts";
import { profileInsertStatement } from "../../src/store/reports/reports.ts";
import { connectHttp, errorJson, mcpPost, seedStandup } from "../helpers/mcp.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let admin: Client;
let adminKey: string;
let actionId: string;
const clients: Client[] = [];

async function client(key: string): Promise<Client> {
  const c = await connectHttp(s.url, key);
  clients.push(c);
  return c;
}

const call = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

const readJson = async (c: Client, uri: string) => {
  const { contents } = await c.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0]).toMatchObject({ uri, mimeType: "application/json" });
  return JSON.parse(String((contents[0] as { text: string }).text));
};

beforeAll(async () => {
  s = await startServer();
  const now = s.clock.now();
  await seedStandup(s.db, s.org.id, now);
  // A profile a week ago and one now: the weekly review reports the pipeline moves between them.
  await s.db.execute(
    profileInsertStatement({
      id: newId("dna", now - 8 * DAY),
      orgId: s.org.id,
      runId: null,
      generatedAt: now - 8 * DAY,
      body: { archetype: "builder", pipeline: [{ company: "Acme", stage: "lead", value: 1000 }] },
    }),
  );
  await s.db.execute(
    profileInsertStatement({
      id: newId("dna", now),
      orgId: s.org.id,
      runId: null,
      generatedAt: now,
      body: { archetype: "builder", pipeline: [{ company: "Acme", stage: "proposal", value: 5000 }] },
    }),
  );
  await insertInsight(s.db, {
    id: newId("ins", now),
    orgId: s.org.id,
    agent: "pulse",
    title: "Churn is down this week",
    detail: null,
    type: "trend",
    impact: "high",
    createdAt: now - DAY,
    createdBy: "pulse",
  });
  ({ key: adminKey } = await s.userWithKey("operator", ["admin"]));
  admin = await client(adminKey);
  const added = await call(admin, "crew_add_action", { title: "Approve the Acme quote", priority: "critical" });
  actionId = (added.structuredContent as { actionId: string }).actionId;
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s.close();
});

describe("resources", () => {
  it("lists the fixed resources and the templates, JSON, with titles and descriptions", async () => {
    // Beside these, the MCP Apps documents (ui://, test/mcp/apps.test.ts).
    const resources = (await admin.listResources()).resources.filter((r) => r.uri.startsWith("crew://"));
    expect(resources.map((r) => r.uri).sort()).toEqual(["crew://agents", "crew://briefing", "crew://profile"]);
    for (const r of resources)
      expect(r).toMatchObject({ mimeType: "application/json", name: expect.any(String), description: expect.any(String) });
    const { resourceTemplates } = await admin.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      "crew://actions/{id}",
      "crew://agents/{id}/runs",
      "crew://standup/{mode}",
    ]);
  });

  it("reads each resource as the REST endpoint answers it", async () => {
    const rest = api(s.url, adminKey);
    const pairs: [string, string][] = [
      ["crew://briefing", "/api/mcp/briefing"],
      ["crew://profile", "/api/mcp/dna"],
      ["crew://agents", "/api/mcp/agents"],
      ["crew://standup/morning", "/api/mcp/standup?mode=morning"],
      ["crew://standup/latest", "/api/mcp/standup?mode=latest"],
      [`crew://actions/${actionId}`, `/api/mcp/actions/${actionId}`],
      ["crew://agents/pulse/runs", "/api/agents/pulse/runs"],
    ];
    for (const [uri, path] of pairs) {
      const answer = await rest(path);
      expect(answer.status, path).toBe(200);
      expect(await readJson(admin, uri), uri).toEqual(answer.json);
    }
  });

  it("GET /api/mcp/actions/{id} (the REST twin of crew://actions/{id}): 404 unknown, admin-only like the queue", async () => {
    const missing = await api(s.url, adminKey)("/api/mcp/actions/act_00000000000000000000000000");
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe("not_found");
    const { key } = await s.userWithKey("operator", ["read"]);
    const reader = await api(s.url, key)(`/api/mcp/actions/${actionId}`);
    expect(reader.status).toBe(403);
    expect(reader.json.error).toBe("insufficient_scope");
  });

  it("answers an unknown URI, a missing record and a bad template value with JSON-RPC errors", async () => {
    await expect(admin.readResource({ uri: "crew://nothing" })).rejects.toMatchObject({ code: -32002 });
    await expect(admin.readResource({ uri: "crew://actions/act_00000000000000000000000000" })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("not found"),
    });
    await expect(admin.readResource({ uri: "crew://standup/noon" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("mode: Must be one of morning, evening, latest."),
    });
  });

  it("links tool results to the records they create or name (resource_link)", async () => {
    const added = await call(admin, "crew_add_action", { actions: [{ title: "One" }, { title: "Two" }] });
    const ids = (added.structuredContent as { actionIds: string[] }).actionIds;
    const links = added.content.filter((c) => c.type === "resource_link");
    expect(links.map((l) => (l as { uri: string }).uri)).toEqual(ids.map((id) => `crew://actions/${id}`));
    const linked = await readJson(admin, `crew://actions/${ids[0]}`);
    expect(linked).toMatchObject({ id: ids[0], title: "One" });

    const briefing = await call(admin, "crew_briefing");
    expect(briefing.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: "crew://briefing", name: "briefing" }));
    const standup = await call(admin, "crew_standup", { mode: "latest" });
    expect(standup.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: "crew://standup/morning" }));
  });
});

describe("prompts", () => {
  it("lists the four prompts with arguments for hand_off", async () => {
    const { prompts } = await admin.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["plan_my_day", "review_queue", "weekly_review", "hand_off"]);
    for (const p of prompts) expect(p.description).toBeTruthy();
    expect(prompts.find((p) => p.name === "hand_off")?.arguments).toEqual([
      expect.objectContaining({ name: "to", required: true }),
      expect.objectContaining({ name: "title", required: true }),
    ]);
  });

  it("plan_my_day embeds the live briefing and the open critical actions", async () => {
    const { messages } = await admin.getPrompt({ name: "plan_my_day" });
    const embedded = messages.find((m) => m.content.type === "resource");
    expect(embedded?.content).toMatchObject({ type: "resource", resource: { uri: "crew://briefing", mimeType: "application/json" } });
    const rest = await api(s.url, adminKey)("/api/mcp/briefing");
    expect(JSON.parse(String((embedded?.content as { resource?: { text?: string } } | undefined)?.resource?.text))).toEqual(rest.json);
    const all = messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
    expect(all).toContain(`[critical] Approve the Acme quote (crew://actions/${actionId}`);
  });

  it("review_queue lists approvals and stale actions; weekly_review the week's standups, insights and pipeline moves", async () => {
    const review = await admin.getPrompt({ name: "review_queue" });
    const reviewText = review.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
    expect(reviewText).toContain("0 action(s) await approval");

    const weekly = await admin.getPrompt({ name: "weekly_review" });
    const weeklyText = weekly.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
    expect(weeklyText).toContain("All quiet.");
    expect(weeklyText).toContain("Churn is down this week");
    expect(weeklyText).toContain("Acme: lead → proposal ($5000)");
  });

  it("hand_off drafts a handoff to the named agent and refuses an unknown one", async () => {
    const { messages } = await admin.getPrompt({ name: "hand_off", arguments: { to: "sales", title: "Chase Acme" } });
    expect(messages[0]?.content).toMatchObject({
      type: "text",
      text: expect.stringContaining('call crew_create_handoff with from "manual", to "sales"'),
    });
    await expect(admin.getPrompt({ name: "hand_off", arguments: { to: "nobody", title: "x" } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("to: Must be one of the 17 agent ids"),
    });
    await expect(admin.getPrompt({ name: "no_such_prompt" })).rejects.toMatchObject({ code: -32602 });
  });

  it("issue 18 item 15: every prompt starts with its instruction as text (Gemini CLI reads only the first message), data after", async () => {
    const firsts: Record<string, string> = {};
    for (const [name, args] of [
      ["plan_my_day", {}],
      ["review_queue", {}],
      ["weekly_review", {}],
      ["hand_off", { to: "sales", title: "Chase Acme" }],
    ] as const) {
      const { messages } = await admin.getPrompt({ name, arguments: args });
      expect(messages.length, name).toBeGreaterThan(1);
      const first = messages[0]?.content;
      expect(first?.type, name).toBe("text");
      firsts[name] = first?.type === "text" ? first.text : "";
      // The first message stands alone: it says where the data is when a client shows only it.
      expect(firsts[name], name).toMatch(/if you do not see (them|it), (get|list) them with crew_/);
      expect(
        messages.slice(1).some((m) => m.content.type === "resource" || (m.content.type === "text" && m.content.text.includes("{"))),
        name,
      ).toBe(true);
    }
    expect(firsts.plan_my_day).toMatch(/^Plan my day: the three things to do first/);
    expect(firsts.weekly_review).toMatch(/^Write my weekly review/);
    expect(firsts.review_queue).toContain("action(s) await approval");
  });
});

describe("completions", () => {
  it("completes agent ids and standup modes, and answers empty for anything else", async () => {
    const to = await admin.complete({ ref: { type: "ref/prompt", name: "hand_off" }, argument: { name: "to", value: "s" } });
    expect(to.completion.values).toEqual(AGENT_IDS.filter((id) => id.startsWith("s")));
    expect(to.completion.values.length).toBeGreaterThan(0);
    const mode = await admin.complete({
      ref: { type: "ref/resource", uri: "crew://standup/{mode}" },
      argument: { name: "mode", value: "" },
    });
    expect(mode.completion.values).toEqual(["morning", "evening", "latest"]);
    const runs = await admin.complete({
      ref: { type: "ref/resource", uri: "crew://agents/{id}/runs" },
      argument: { name: "id", value: "pul" },
    });
    expect(runs.completion.values).toEqual(["pulse"]);
    const none = await admin.complete({ ref: { type: "ref/prompt", name: "unknown" }, argument: { name: "x", value: "" } });
    expect(none.completion).toEqual({ values: [], total: 0, hasMore: false });
  });
});

describe("what each plan sees", () => {
  it("a pro key sees the read-tier resources and prompts only", async () => {
    const { key } = await s.userWithKey("pro", ["read"]);
    const pro = await client(key);
    expect((await pro.listResources()).resources.filter((r) => r.uri.startsWith("crew://"))).toHaveLength(3);
    expect((await pro.listResourceTemplates()).resourceTemplates).toHaveLength(3);
    expect((await pro.listPrompts()).prompts.map((p) => p.name)).toEqual(["plan_my_day", "review_queue", "weekly_review"]);
    await expect(pro.getPrompt({ name: "hand_off", arguments: { to: "sales", title: "x" } })).rejects.toMatchObject({
      message: expect.stringContaining("plan_upgrade_required"),
    });
    expect(await readJson(pro, "crew://profile")).toMatchObject({ archetype: "builder" });
  });

  it("issue 11 item 16: instructions name the caller's plan; a lite user learns why there are no tools and which plan adds them", async () => {
    const { key: proKey } = await s.userWithKey("pro", ["read"]);
    const pro = await client(proKey);
    expect(pro.getInstructions()).toContain("Your plan (pro) includes the read tools");
    expect(pro.getInstructions()).toContain("need the operator plan");
    expect(admin.getInstructions()).toContain("Your plan (operator) includes the write tools too");

    const { key } = await s.userWithKey("lite", []);
    const lite = await client(key);
    expect(lite.getInstructions()).toContain("Your Crew plan (lite) does not include access over MCP");
    expect(lite.getInstructions()).toContain("The pro plan adds the read tools");
    const listed = await mcpPost(
      s.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2025-11-25" },
    );
    expect(listed.json.result.tools).toEqual([]);
    expect(listed.json.result._meta["crew/explanation"]).toContain("The pro plan adds the read tools");
    expect((await lite.listResources()).resources).toEqual([]);
    expect((await lite.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await lite.listPrompts()).prompts).toEqual([]);
    await expect(lite.readResource({ uri: "crew://briefing" })).rejects.toMatchObject({
      message: expect.stringContaining("plan_upgrade_required"),
    });
  });
});

describe("icons", () => {
  it("server and tools carry icons served by Crew as SVG", async () => {
    const server = admin.getServerVersion() as { icons?: { src: string; mimeType: string }[] };
    expect(server.icons).toEqual([{ src: `${s.url}/icons/crew.svg`, mimeType: "image/svg+xml", sizes: ["any"] }]);
    const { tools } = await admin.listTools();
    for (const tool of tools) {
      expect(tool.icons?.[0]?.src, tool.name).toMatch(new RegExp(`^${s.url}/icons/(read|write)\\.svg$`));
    }
    for (const src of new Set([server.icons?.[0]?.src, ...tools.map((t) => t.icons?.[0]?.src)])) {
      const res = await fetch(String(src));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
    expect((await fetch(`${s.url}/icons/nothing.svg`)).status).toBe(404);
  });
});

describe("tool arguments", () => {
  it("issue 11 item 17: null for an optional MCP tool argument means absent; REST keeps refusing null", async () => {
    const result = await call(admin, "crew_add_action", {
      title: "From a strict client",
      description: null,
      category: null,
      lane: null,
      contactId: null,
      dealId: null,
      actions: null,
    });
    expect(result.isError).toBeFalsy();
    const id = (result.structuredContent as { actionId: string }).actionId;
    expect(await readJson(admin, `crew://actions/${id}`)).toMatchObject({
      title: "From a strict client",
      description: null,
      lane: "this_week",
    });
    const listed = await call(admin, "crew_list_actions", { status: null, cursor: null, limit: 2 });
    expect(listed.isError).toBeFalsy();
    // A required argument stays required.
    const missing = await call(admin, "crew_update_action", { id: null, status: "done" });
    expect(missing.isError).toBe(true);

    const rest = await api(s.url, adminKey)("/api/mcp/actions", { body: { title: "Via REST", description: null } });
    expect(rest.status).toBe(400);
    expect(rest.json.issues).toEqual([{ path: "description", message: expect.stringContaining("Got null") }]);
  });

  it("issue 11 item 18: crew_add_action with both title and actions names the conflict", async () => {
    const before = await api(s.url, adminKey)("/api/mcp/actions?limit=100");
    const result = await call(admin, "crew_add_action", { title: "One", actions: [{ title: "Two" }] });
    expect(result.isError).toBe(true);
    expect(errorJson(result).issues).toEqual([
      { path: "title", message: "Conflicts with actions: send one action's fields (title, priority, …) or a batch in actions, not both." },
    ]);
    expect(JSON.stringify(result)).not.toContain("Unknown field");
    const after = await api(s.url, adminKey)("/api/mcp/actions?limit=100");
    expect(after.json.actions).toHaveLength(before.json.actions.length);
  });
});

describe("discovery documents", () => {
  it("the server card and llms.txt list the resources from the registry", async () => {
    const card = await (await fetch(`${s.url}/.well-known/mcp.json`)).json();
    expect(card.resources.map((r: { uri?: string; uriTemplate?: string }) => r.uri ?? r.uriTemplate).sort()).toEqual([
      "crew://actions/{id}",
      "crew://agents",
      "crew://agents/{id}/runs",
      "crew://briefing",
      "crew://profile",
      "crew://standup/{mode}",
    ]);
    const llms = await (await fetch(`${s.url}/llms.txt`)).text();
    expect(llms).toContain("## MCP resources");
    expect(llms).toContain("- `crew://actions/{id}` (One action, template):");
  });
});
