/**
 * Event triggers (src/docs/notes/connections.md): POST /api/agents/{id}/trigger over real HTTP with
 * a scripted model server standing in for a model (a real one is out of reach). The payload is
 * an external input the run cites (`kind: "event"`), the run says `trigger: "event"`; members
 * are refused, oversized payloads are 413, a Standard Webhooks signature with the agent's trigger
 * secret needs no key, and a wrong signature is 401.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MINUTE } from "../../src/lib/clock.ts";
import { signedInTab } from "../helpers/connect-account.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { untrustedData } from "../helpers/run-data.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let model: ScriptedModel;
let s: TestServer;
let owner: string;
let member: string;

const eventOf = (text: string | undefined) => untrustedData(text, "event");

beforeAll(async () => {
  model = await startScriptedModel((r) => {
    const event = eventOf(r.messages[0]?.text ?? "");
    return {
      object: {
        summary: "Event read",
        actions: event
          ? [{ title: `Follow up: ${event.payload.company}`, priority: "high", type: "follow_up", evidence: [event.handle] }]
          : [],
      },
    };
  });
  s = await startServer({ env: modelEnv(model) });
  owner = (await s.userWithKey("operator", ["admin"])).key;
  const m = await s.createUser("operator", undefined, "member");
  member = await s.createKey(m, ["admin"]);
}, 30_000);

afterAll(async () => {
  await s?.close();
  await model?.close();
});

async function finished(runId: string) {
  for (let i = 0; i < 100; i++) {
    const runs = (await api(s.url, owner)("/api/agents/sales/runs")).json.runs as any[];
    const run = runs.find((r) => r.id === runId);
    if (run && run.status !== "running") return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the run did not finish");
}

const post = (body: string, headers: Record<string, string>) =>
  fetch(`${s.url}/api/agents/sales/trigger`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });

describe("POST /api/agents/{id}/trigger", () => {
  it("with the owner's key: 202 with the run id, the run cites the payload and says trigger event", async () => {
    const res = await api(s.url, owner)("/api/agents/sales/trigger", { body: { company: "Initech", stage: "demo booked" } });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ runId: expect.stringMatching(/^run_/), agentId: "sales", status: "started" });
    const run = await finished(res.json.runId);
    expect(run).toMatchObject({ status: "ok", trigger: "event" });
    expect(eventOf(model.requests.at(-1)?.messages[0]?.text ?? "").payload).toEqual({ company: "Initech", stage: "demo booked" });
    const actions = (await api(s.url, owner)("/api/mcp/actions?limit=20")).json.actions as any[];
    const action = actions.find((a) => a.title === "Follow up: Initech");
    expect(action.evidence).toEqual([
      expect.objectContaining({ kind: "event", ref: expect.stringMatching(/^evt_/), excerpt: expect.stringContaining("Initech") }),
    ]);
  });

  it("a member's key: 403, and no run", async () => {
    const before = (await api(s.url, owner)("/api/agents/sales/runs")).json.runs.length;
    const res = await api(s.url, member)("/api/agents/sales/trigger", { body: { company: "Nope" } });
    expect(res.status).toBe(403);
    expect(res.json.error).toBe("forbidden");
    expect((await api(s.url, owner)("/api/agents/sales/runs")).json.runs.length).toBe(before);
  });

  it("over 64 KiB: 413", async () => {
    const res = await api(s.url, owner)("/api/agents/sales/trigger", { body: { blob: "x".repeat(65 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.json.error).toBe("payload_too_large");
  });

  it("an owner's signed-in session: 202", async () => {
    const user = await s.createUser("operator", "session.trigger@example.org", "owner");
    const tab = await signedInTab(s, user.email);
    const res = await tab.fetch("/api/agents/sales/trigger", { json: { company: "Umbrella" } });
    expect(res.status).toBe(202);
    expect((await finished((await res.json()).runId)).trigger).toBe("event");
  });

  it("no credential: 401", async () => {
    const res = await post("{}", {});
    expect(res.status).toBe(401);
  });

  it("signed with the agent's trigger secret: 202; a wrong or stale signature: 401", async () => {
    const made = await api(s.url, owner)("/api/agents/sales/trigger-secret", { method: "POST" });
    expect(made.status).toBe(200);
    expect(made.json.secret).toMatch(/^whsec_/);
    expect((await api(s.url, owner)("/api/agents/sales")).json.triggerSecret).toBe(true);
    const body = JSON.stringify({ company: "Globex" });
    const at = new Date(s.clock.now());
    const signature = new Webhook(made.json.secret).sign("msg_1", at, body);
    const ok = await post(body, {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(at.getTime() / 1000),
      "webhook-signature": signature,
    });
    expect(ok.status).toBe(202);
    const run = await finished((await ok.json()).runId);
    expect(run.trigger).toBe("event");

    const forged = new Webhook(`whsec_${Buffer.from("another secret of 24 bytes!").toString("base64")}`).sign("msg_2", at, body);
    const bad = await post(body, { "webhook-id": "msg_2", "webhook-timestamp": String(at.getTime() / 1000), "webhook-signature": forged });
    expect(bad.status).toBe(401);
    expect((await bad.json()).error).toBe("invalid_signature");

    const old = new Date(s.clock.now() - 10 * MINUTE);
    const stale = await post(body, {
      "webhook-id": "msg_3",
      "webhook-timestamp": String(old.getTime() / 1000),
      "webhook-signature": new Webhook(made.json.secret).sign("msg_3", old, body),
    });
    expect(stale.status).toBe(401);
  });
});

describe("crew_trigger_agent (MCP)", () => {
  it("starts a run whose records cite the payload", async () => {
    const mcp = await connectHttp(s.url, owner);
    const result = (await mcp.callTool({
      name: "crew_trigger_agent",
      arguments: { agent: "sales", payload: { company: "Hooli" } },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as { runId: string; status: string };
    expect(out.status).toBe("started");
    expect((await finished(out.runId)).trigger).toBe("event");
    await mcp.close();
  });
});

describe("the agent page's Triggers card", () => {
  it("shows a new trigger secret once, and switches new mail off for the inbox agent", async () => {
    const user = await s.createUser("operator", "page.owner@example.org", "owner");
    const tab = await signedInTab(s, user.email);
    const page = await (await tab.fetch("/agents/sales")).text();
    expect(page).toContain("Triggers");
    const made = await tab.fetch("/agents/sales/trigger-secret", { form: { csrf: await tab.csrf("/agents/sales") } });
    expect(made.status).toBe(200);
    expect(await made.text()).toMatch(/whsec_[A-Za-z0-9+/=]{20,}/);
    expect(await (await tab.fetch("/agents/sales")).text()).not.toMatch(/whsec_/);

    const off = await tab.fetch("/agents/inbox/new-mail", { form: { csrf: await tab.csrf("/agents/inbox"), on: "off" } });
    expect(off.status).toBe(303);
    expect((await api(s.url, owner)("/api/agents/inbox")).json.runOnNewMail).toBe(false);
  });
});
