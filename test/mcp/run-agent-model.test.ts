/**
 * `crew_run_agent` with a model connected (a scripted model server: a hosted model is out of reach).
 *
 * Issue 23 item 5, "tasks/cancel before the model call abandons the run": the tool as a task for
 * the `research` agent, whose run first reads its feed. The feed (served on loopback) holds its
 * answer until the test has cancelled the task, so the cancel lands before the model call: the
 * model server receives no request, the run is recorded as an error saying it was abandoned, no
 * insight is stored, and `tasks/get` reports `cancelled`.
 *
 * Issue 23 item 3: an agent whose source is missing sends a URL-elicitation capable client to
 * `{base}/settings/sources`.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../helpers/agents.ts";
import { mcpPost } from "../helpers/mcp.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Market news</title><link>https://news.example.com/</link><description>News</description>
<item><guid>c1</guid><title>Competitor opens an office</title><link>https://news.example.com/c1</link><pubDate>Fri, 20 Nov 2026 09:00:00 GMT</pubDate><description>In Lisbon.</description></item>
</channel></rss>`;

/** A feed on loopback whose answers wait while `held` (their number is kept, to know the run reached it). */
async function gatedFeed() {
  let held = false;
  const waiting: ServerResponse[] = [];
  const answer = (res: ServerResponse) => res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
  const server = createServer((_req, res) => (held ? waiting.push(res) : answer(res)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rss.xml`,
    hold: () => {
      held = true;
    },
    waiting: () => waiting.length,
    release: () => {
      held = false;
      for (const res of waiting.splice(0)) answer(res);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let model: ScriptedModel;
let feed: Awaited<ReturnType<typeof gatedFeed>>;
let s: TestServer;
let key: string;
beforeAll(async () => {
  model = await startScriptedModel(() => ({ object: { summary: "Read the market news", insights: [] } }));
  feed = await gatedFeed();
  s = await startServer({ env: modelEnv(model) });
  ({ key } = await s.userWithKey("operator", ["admin"]));
  const added = await api(s.url, key)("/api/integrations/sources", { body: { kind: "feed", url: feed.url, agents: ["research"] } });
  expect(added.status, added.text).toBe(200);
});
afterAll(async () => {
  await s?.close();
  await feed?.close();
  await model?.close();
});

const TASKS = { "io.modelcontextprotocol/tasks": {} };
const post = (
  method: string,
  name: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = { extensions: TASKS },
) =>
  mcpPost(
    s.url,
    {
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    },
    { Authorization: `Bearer ${key}`, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name },
  );

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("tasks/cancel before the model call", () => {
  it("abandons the run: no model request, the run recorded as abandoned, nothing stored, the task cancelled", async () => {
    const insightsBefore = (await rows(s.db, "SELECT id FROM insights")).length;
    feed.hold();
    const created = await post("tools/call", "crew_run_agent", { name: "crew_run_agent", arguments: { agent: "research" } });
    expect(created.json.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.json.result.taskId as string;
    await until(() => feed.waiting() > 0); // the run is reading its feed: the model is not called yet

    expect((await post("tasks/cancel", taskId, { taskId })).json.result).toMatchObject({ resultType: "complete" });
    feed.release();
    let task: any;
    await until(async () => {
      task = (await post("tasks/get", taskId, { taskId })).json.result;
      return task.status !== "working";
    });

    expect(task.status).toBe("cancelled");
    expect(model.requests).toHaveLength(0);
    const runs = await rows<{ status: string; error: string | null; summary: string }>(
      s.db,
      "SELECT status, error, summary FROM agent_runs WHERE agent_id = 'research'",
    );
    expect(runs).toEqual([expect.objectContaining({ status: "error", error: "cancelled" })]);
    expect(runs[0]?.summary).toMatch(/abandoned before the model was called/i);
    expect((await rows(s.db, "SELECT id FROM insights")).length).toBe(insightsBefore);
  });
});

describe("an agent without its source", () => {
  it("sends a URL-elicitation capable client to the sources settings", async () => {
    // corpdev reads feeds too, and none is connected for it.
    const res = await post(
      "tools/call",
      "crew_run_agent",
      { name: "crew_run_agent", arguments: { agent: "corpdev" } },
      { elicitation: { url: {} } },
    );
    expect(res.json.result.resultType).toBe("input_required");
    expect(JSON.stringify(res.json.result.inputRequests)).toContain(`${s.url}/settings/sources`);
    expect(model.requests).toHaveLength(0);
  });
});
